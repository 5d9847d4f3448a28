import { archiveBench } from "./archive.js";
import { changesBench } from "./changes.js";
import { launchBench } from "./launch.js";
import { parallelLaunchBench } from "./parallel-launch.js";
import { remoteBench } from "./remote.js";
import { printTable, type Row } from "./util.js";

/** `npm run bench`: ratios against the raw tools measured in the same run (not asserted in tests). */
const rounds = Number(process.env.GROVE_BENCH_ROUNDS ?? 5);
const rows: Row[] = [];
rows.push(...(await launchBench(rounds)));
rows.push(...(await remoteBench()));
rows.push(...(await changesBench(rounds)));
rows.push(...(await parallelLaunchBench(Math.min(rounds, 3))));
rows.push(...(await archiveBench(rounds)));
printTable(rows);
process.exit(0);
