import { launchBench } from "./launch.js";
import { remoteBench } from "./remote.js";
import { printTable, type Row } from "./util.js";

/** `npm run bench`: ratios against the raw tools measured in the same run (not asserted in tests). */
const rounds = Number(process.env.GROVE_BENCH_ROUNDS ?? 5);
const rows: Row[] = [];
rows.push(...(await launchBench(rounds)));
rows.push(...(await remoteBench()));
printTable(rows);
process.exit(0);
