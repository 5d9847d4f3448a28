import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startServer } from "../src/app.js";
import { benchTmp } from "./changes.js";
import { rawLaunch } from "./launch.js";
import { timedRow } from "./stats.js";
import { generatedRepo, gitIn, requestJson, type Row } from "./util.js";

/** The baseline: the same 20 `git worktree add` run one after another by a shell loop. */
export function shellLoop(repo: string, dir: string, tag: string): number {
  const script = `for i in $(seq 1 20); do git worktree add -q -b "raw-${tag}-$i" -- "${dir}/raw-${tag}-$i" main || exit 1; done`;
  const t0 = performance.now();
  execFileSync("sh", ["-c", script], { cwd: repo, env: { ...process.env, LC_ALL: "C" }, stdio: "ignore" });
  return performance.now() - t0;
}

/**
 * WT-6 at scale: 20 sessions launched at once through the HTTP API on one repository of 10,000
 * files (each: worktree under the repository lock, rows, agent spawned) against 20 sequential
 * `git worktree add` in a shell loop, alternated A B A B. Worktrees are kept until the end
 * (mass deletions slow the disk for whatever runs next).
 */
export async function parallelLaunchBench(rounds = 5): Promise<Row[]> {
  const scripted = await parallelLaunchRun(rounds, "scripted");
  const minimal = await parallelLaunchRun(rounds, "minimal");
  const failed = (n: number) => (n ? ` (${n} FAILED)` : "");
  return [
    timedRow(
      `20 parallel launches, scripted agent: 20 agents up${failed(scripted.failed)}`,
      scripted.grove,
      scripted.rawLaunches,
      "≤ 1.15×",
      "20 serial raw launches: ",
    ),
    timedRow("20 parallel launches, scripted agent: 20 agents up", scripted.grove, scripted.raw, "-", "20 serial `git worktree add`: "),
    timedRow("20 parallel launches, scripted agent: 20 environments ready", scripted.prepared, scripted.raw, "-", "20 serial `git worktree add`: "),
    timedRow(
      `20 parallel launches, minimal agent: 20 environments ready${failed(minimal.failed)}`,
      minimal.prepared,
      minimal.raw,
      "≤ 1.3×",
      "20 serial `git worktree add`: ",
    ),
    timedRow("20 parallel launches, minimal agent: 20 agents up", minimal.grove, minimal.raw, "-", "20 serial `git worktree add`: "),
  ];
}

/** 20 raw launches (worktree add + agent spawn + initialize/session/new) one after another. */
async function serialRawLaunches(repo: string, dir: string, tag: string): Promise<number> {
  const t0 = performance.now();
  for (let i = 1; i <= 20; i++) await rawLaunch(repo, join(dir, `launch-${tag}-${i}`), `launch-${tag}-${i}`);
  return performance.now() - t0;
}

/** Raw worktrees go after each round (not timed): 40 checkouts of 10,000 files per round would fill a tmpfs. */
function dropRawWorktrees(repo: string, dir: string): void {
  for (const e of readdirSync(dir)) rmSync(join(dir, e), { recursive: true, force: true });
  gitIn(repo, "worktree", "prune");
}

async function parallelLaunchRun(
  rounds: number,
  agent: "scripted" | "minimal",
): Promise<{ grove: number[]; prepared: number[]; raw: number[]; rawLaunches: number[]; failed: number }> {
  const tmp = benchTmp();
  const saved = process.env.GROVE_BENCH_TMP;
  if (tmp) process.env.GROVE_BENCH_TMP = tmp;
  const repo = generatedRepo(10_000, "grove-bench-par-");
  if (saved === undefined) delete process.env.GROVE_BENCH_TMP;
  else process.env.GROVE_BENCH_TMP = saved;
  const home = mkdtempSync(join(tmp ?? tmpdir(), "grove-bench-par-home-"));
  const rawDir = mkdtempSync(join(tmp ?? tmpdir(), "grove-bench-par-raw-"));
  if (agent === "minimal") {
    const script = fileURLToPath(new URL("./minimal-agent.mjs", import.meta.url));
    writeFileSync(
      join(home, "agents.json"),
      JSON.stringify({ agents: [{ name: "minimal", command: process.execPath, args: [script], permissionPolicy: "auto_approve" }] }),
    );
  }
  const server = await startServer({
    env: { ...process.env, GROVE_HOME: home, GROVE_PORT: "0", GROVE_LOG_LEVEL: "warn", GROVE_DATABASE_URL: "" },
    quiet: true,
  });
  const api = (method: string, path: string, body?: unknown) => requestJson(method, `${server.url}/api/v1${path}`, body);
  const grove: number[] = [];
  const prepared: number[] = [];
  const raw: number[] = [];
  const rawLaunches: number[] = [];
  let failed = 0;
  try {
    const repoRow = await api("POST", "/repositories", { path: repo });
    // Each measurement starts once the in-process server is quiet (no git process for a second):
    // the previous round's background work (agents stopping, diff stats) must not land on it.
    const git = server.deps.git;
    const settle = async () => {
      for (let last = -1; git.spawnCount !== last; ) {
        last = git.spawnCount;
        await new Promise((r) => setTimeout(r, 1000));
      }
    };
    for (let round = 0; round < rounds; round++) {
      await settle();
      raw.push(shellLoop(repo, rawDir, String(round)));
      if (agent === "scripted") rawLaunches.push(await serialRawLaunches(repo, rawDir, String(round)));
      dropRawWorktrees(repo, rawDir);
      await settle();
      const tasks = await Promise.all(
        Array.from({ length: 20 }, (_, i) => api("POST", "/tasks", { title: `par ${round} ${i}`, repositories: [{ repositoryId: repoRow.id }] })),
      );
      const ids = new Set(tasks.map((t) => t.id as string));
      let readyAt = 0;
      let ready = 0;
      const off = server.deps.bus.subscribe((f) => {
        const d = f.data as { taskId?: string; status?: string };
        if (f.type === "environment.updated" && d.status === "ready" && ids.has(d.taskId ?? "") && ++ready === 20) readyAt = performance.now();
      });
      const t0 = performance.now();
      const sessions = await Promise.all(tasks.map((t) => api("POST", `/tasks/${t.id}/sessions`, { agent })));
      grove.push(performance.now() - t0);
      off();
      prepared.push(readyAt - t0);
      failed += sessions.filter((s) => s.state !== "waiting_for_input").length;
      // Stop the agents (the worktrees stay) so the next round starts from the same load.
      await Promise.all(sessions.map((s) => api("DELETE", `/sessions/${s.id}`)));
    }
  } finally {
    await server.close();
    rmSync(repo, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
    rmSync(rawDir, { recursive: true, force: true });
  }
  return { grove, prepared, raw, rawLaunches, failed };
}
