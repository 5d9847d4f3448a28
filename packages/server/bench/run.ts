import { archiveBench } from "./archive.js";
import { changesBench } from "./changes.js";
import { cliBench } from "./cli.js";
import { claudeStartBench } from "./claude-start.js";
import { forwardBench } from "./forward.js";
import { launchBench } from "./launch.js";
import { massBench } from "./mass.js";
import { monorepoBench } from "./monorepo.js";
import { parallelLaunchBench } from "./parallel-launch.js";
import { remoteBench } from "./remote.js";
import { sandboxBench } from "./sandbox.js";
import { scaleBench } from "./scale.js";
import { startupBench } from "./startup.js";
import { printTable, type Row } from "./util.js";
import { usageBench } from "./usage.js";
import { webBench } from "./web.js";

/**
 * `npm run bench`: ratios against the raw tools measured in the same run (not asserted in tests).
 * GROVE_BENCH_ROUNDS sets the rounds; GROVE_BENCH_ONLY=launch,remote,changes,parallel,archive,cli,claude,startup,scale,web,forward,sandbox,usage,monorepo,mass
 * runs a subset. The monorepo rows build their repository once into GROVE_BENCH_CACHE (GROVE_BENCH_MONO_FILES sets its size).
 */
const rounds = Number(process.env.GROVE_BENCH_ROUNDS ?? 5);
const benches: Record<string, () => Promise<Row[]>> = {
  launch: () => launchBench(rounds),
  remote: () => remoteBench(),
  changes: () => changesBench(rounds),
  parallel: () => parallelLaunchBench(rounds),
  archive: () => archiveBench(rounds),
  cli: () => cliBench(Math.max(rounds, 5)),
  claude: () => claudeStartBench(rounds),
  startup: () => startupBench(rounds),
  scale: () => scaleBench(rounds),
  web: () => webBench(rounds),
  forward: () => forwardBench(rounds),
  sandbox: () => sandboxBench(Math.max(rounds, 6)),
  usage: () => usageBench(),
  monorepo: () => monorepoBench(rounds),
  mass: () => massBench(Math.min(rounds, 3)),
};
const only = process.env.GROVE_BENCH_ONLY?.split(",").map((s) => s.trim());
const unknown = only?.filter((n) => !(n in benches)) ?? [];
if (unknown.length > 0) {
  process.stderr.write(`unknown benchmark(s): ${unknown.join(", ")}; known: ${Object.keys(benches).join(", ")}\n`);
  process.exit(2);
}
const rows: Row[] = [];
for (const [name, run] of Object.entries(benches)) if (!only || only.includes(name)) rows.push(...(await run()));
if (process.argv.includes("--json")) process.stdout.write(JSON.stringify({ at: new Date().toISOString(), rounds, rows }, null, 2) + "\n");
else printTable(rows);
process.exit(0);
