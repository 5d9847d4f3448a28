import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { crashAgain, seedHome } from "./seed-home.js";
import { fmtMs, ratio, series } from "./stats.js";
import type { Row } from "./util.js";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));

/** Spawns `cmd`, resolves with the ms until `marker` appears on stdout (or the exit, when no marker), then stops it. */
export function timeTo(cmd: string, args: string[], env: NodeJS.ProcessEnv, marker?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    // Own process group: `npm start` → node; the whole group is stopped.
    const child = spawn(cmd, args, { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
    let out = "";
    let took: number | undefined;
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      if (marker && took === undefined && out.includes(marker)) {
        took = performance.now() - t0;
        process.kill(-(child.pid ?? 0), "SIGTERM");
      }
    });
    child.stderr.on("data", (d: Buffer) => (out += d.toString()));
    child.on("exit", (code) => {
      if (!marker) return resolve(performance.now() - t0);
      if (took !== undefined) return resolve(took);
      reject(new Error(`${cmd} ${args.join(" ")} exited ${code} before "${marker}":\n${out}`));
    });
  });
}

/**
 * Start-up that does not grow with history: `npm start` (nothing stale) until `listening`, with
 * 10,000 tasks and 100 sessions to recover, against `node -e 0` in the same run (A B A B).
 */
export async function startupBench(rounds: number): Promise<Row[]> {
  const home = mkdtempSync(join(tmpdir(), "grove-bench-start-"));
  await seedHome(home, { tasks: 10_000, live: 100, repoPath: ROOT });
  const env = { ...process.env, GROVE_HOME: home, GROVE_PORT: "0", GROVE_LOG_LEVEL: "warn", GROVE_DATABASE_URL: "", GROVE_AUTH_TOKEN: "" };
  // Warm-up (and the one build, if anything is stale): not measured.
  await timeTo("npm", ["start"], env, "listening on");
  const npmStart: number[] = [];
  const direct: number[] = [];
  const tsx: number[] = [];
  const raw: number[] = [];
  try {
    for (let i = 0; i < rounds; i++) {
      raw.push(await timeTo(process.execPath, ["-e", "0"], env));
      await crashAgain(home);
      npmStart.push(await timeTo("npm", ["start"], env, "listening on"));
      await crashAgain(home);
      direct.push(await timeTo(process.execPath, ["scripts/start.mjs"], env, "listening on"));
      // The unbundled path only twice: it is slow and only there for comparison.
      if (i < 2) {
        await crashAgain(home);
        tsx.push(await timeTo(process.execPath, ["packages/server/bin/grove.mjs", "serve"], env, "listening on"));
      }
    }
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
  const rawS = series(raw);
  return [
    {
      benchmark: "start-up: `npm start` → listening (10,000 tasks, 100 sessions to recover)",
      grove: fmtMs(series(npmStart)),
      raw: `node -e 0: ${fmtMs(rawS)}`,
      ratio: ratio(npmStart, raw),
      target: "< 800 ms (≈ 6.7× node -e 0 at 120 ms)",
    },
    {
      benchmark: "start-up: `node scripts/start.mjs` → listening (same, without npm)",
      grove: fmtMs(series(direct)),
      raw: `node -e 0: ${fmtMs(rawS)}`,
      ratio: ratio(direct, raw),
      target: "-",
    },
    {
      benchmark: "start-up: `grove serve` through tsx (the unbundled path)",
      grove: fmtMs(series(tsx)),
      raw: `node -e 0: ${fmtMs(rawS)}`,
      ratio: ratio(tsx, raw),
      target: "-",
    },
  ];
}
