import { mkdirSync, mkdtempSync, readdirSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServer } from "../src/app.js";
import { computeChanges } from "../src/git/changes.js";
import { GitRunner } from "../src/git/runner.js";
import { benchTmp, rawChanges } from "./changes.js";
import { cachedMonorepo, monoPath, monorepoClone, monorepoFiles } from "./monorepo-repo.js";
import { shellLoop } from "./parallel-launch.js";
import { timedRow } from "./stats.js";
import { gitIn, requestJson, type Row } from "./util.js";

/** Resolves once `git` spawned nothing for a second: the previous step's background work is done. */
async function settle(git: GitRunner): Promise<void> {
  for (let last = -1; git.spawnCount !== last; ) {
    last = git.spawnCount;
    await new Promise((r) => setTimeout(r, 1000));
  }
}

function rawAdd(repo: string, path: string, branch: string): number {
  const t0 = performance.now();
  gitIn(repo, "worktree", "add", "-q", "-b", branch, "--", path, "main");
  return performance.now() - t0;
}

function dropRaw(repo: string, dir: string): void {
  for (const e of readdirSync(dir)) rmSync(join(dir, e), { recursive: true, force: true });
  gitIn(repo, "worktree", "prune");
}

interface StartRun {
  grove: number[];
  raw: number[];
  attachGit: number[];
  parallel: number[];
  serialRaw: number[];
  failed: number;
}

/**
 * One server on the monorepo with the worktree pool at `poolSize` (0 = off): task starts through
 * the API (POST /sessions without a prompt answers once the agent is up) against raw `git
 * worktree add` of the same base, alternated A B A B; then one attach per task (git processes
 * counted by the runner); then `parallelRounds` rounds of 20 parallel starts against 20 serial
 * raw adds.
 */
async function startRun(root: string, repo: string, poolSize: number, rounds: number, parallelRounds: number): Promise<StartRun> {
  const home = mkdtempSync(join(root, `home-${poolSize}-`));
  const rawDir = mkdtempSync(join(root, `raw-${poolSize}-`));
  const env = {
    ...process.env,
    GROVE_HOME: home,
    GROVE_PORT: "0",
    GROVE_LOG_LEVEL: "warn",
    GROVE_DATABASE_URL: "",
    GROVE_WORKTREE_POOL_SIZE: String(poolSize),
  };
  const server = await startServer({ env, quiet: true });
  const api = (method: string, path: string, body?: unknown) => requestJson(method, `${server.url}/api/v1${path}`, body);
  // Warm means: the pool has finished its background fills (no-op when it is off).
  const quiet = async () => {
    await server.deps.pool?.idle();
    await settle(server.deps.git);
  };
  const out: StartRun = { grove: [], raw: [], attachGit: [], parallel: [], serialRaw: [], failed: 0 };
  try {
    const repoRow = await api("POST", "/repositories", { path: repo });
    const groveStart = async (i: number) => {
      const task = await api("POST", "/tasks", { title: `mono ${poolSize} ${i}`, repositories: [{ repositoryId: repoRow.id }] });
      const t0 = performance.now();
      const s = await api("POST", `/tasks/${task.id}/sessions`, {});
      out.grove.push(performance.now() - t0);
      if (s.state !== "waiting_for_input") out.failed += 1;
      await quiet();
      const before = server.deps.git.spawnCount;
      await api("POST", `/tasks/${task.id}/sessions`, {});
      out.attachGit.push(server.deps.git.spawnCount - before);
    };
    for (let i = 0; i < rounds; i++) {
      await quiet();
      if (i % 2 === 0) out.raw.push(rawAdd(repo, join(rawDir, `raw-${i}`), `raw-${poolSize}-${i}`));
      dropRaw(repo, rawDir);
      await quiet();
      await groveStart(i);
      await quiet();
      if (i % 2 === 1) out.raw.push(rawAdd(repo, join(rawDir, `raw-${i}`), `raw-${poolSize}-${i}`));
      dropRaw(repo, rawDir);
    }
    for (let round = 0; round < parallelRounds; round++) {
      await quiet();
      out.serialRaw.push(shellLoop(repo, rawDir, `${poolSize}-${round}`));
      dropRaw(repo, rawDir);
      await quiet();
      const tasks = await Promise.all(
        Array.from({ length: 20 }, (_, i) => api("POST", "/tasks", { title: `par ${round} ${i}`, repositories: [{ repositoryId: repoRow.id }] })),
      );
      const t0 = performance.now();
      const sessions = await Promise.all(tasks.map((t) => api("POST", `/tasks/${t.id}/sessions`, {})));
      out.parallel.push(performance.now() - t0);
      out.failed += sessions.filter((s) => s.state !== "waiting_for_input").length;
      await Promise.all(sessions.map((s) => api("DELETE", `/sessions/${s.id}`)));
    }
  } finally {
    await server.close();
    rmSync(rawDir, { recursive: true, force: true });
  }
  return out;
}

/**
 * CHG-1 on the monorepo: 5,000 changed paths (2,000 committed on the branch, 2,000 unstaged,
 * 500 deleted, 500 untracked), Grove's `computeChanges` against raw merge-base + status ‖
 * numstat in the same run, A B A B; the git processes of one Grove round are counted.
 */
async function changesRun(repo: string, rounds: number): Promise<{ grove: number[]; raw: number[]; files: number; gitPerRound: number }> {
  const files = monorepoFiles();
  const at = (i: number) => join(repo, monoPath(Math.floor((i * 10) % files) + Math.floor((i * 10) / files)));
  gitIn(repo, "switch", "-q", "-c", "mono-changes");
  for (let i = 0; i < 2000; i++) writeFileSync(at(i), `committed change ${i}\n`);
  gitIn(repo, "commit", "-qam", "task work");
  for (let i = 2000; i < 4000; i++) writeFileSync(at(i), `unstaged change ${i}\n`);
  for (let i = 4000; i < 4500; i++) unlinkSync(at(i));
  mkdirSync(join(repo, "new"), { recursive: true });
  for (let i = 0; i < 500; i++) writeFileSync(join(repo, "new", `u${i}.ts`), `untracked ${i}\n`);
  const git = new GitRunner();
  const grove: number[] = [];
  const raw: number[] = [];
  let changed = 0;
  let gitPerRound = 0;
  const groveRound = async () => {
    const before = git.spawnCount;
    const t0 = performance.now();
    const c = await computeChanges(git, { worktreePath: repo, baseBranch: "main" });
    grove.push(performance.now() - t0);
    gitPerRound = git.spawnCount - before;
    changed = c.files.length;
  };
  // Warm-up of both (the first status after the writes refreshes the index's stat data).
  await rawChanges(repo);
  await computeChanges(git, { worktreePath: repo, baseBranch: "main" });
  for (let i = 0; i < rounds; i++) {
    if (i % 2 === 0) raw.push(await rawChanges(repo));
    await groveRound();
    if (i % 2 === 1) raw.push(await rawChanges(repo));
  }
  return { grove, raw, files: changed, gitPerRound };
}

/**
 * WT-10/WT-11 monorepo scale: a generated repository of GROVE_BENCH_MONO_FILES files (default
 * 100,000 in 5,000 directories) with history, built once with fast-import into the bench cache
 * and cloned (objects shared) into the bench's temp dir for each run.
 */
export async function monorepoBench(rounds: number): Promise<Row[]> {
  const files = monorepoFiles();
  const bare = await cachedMonorepo(files);
  const root = mkdtempSync(join(benchTmp() ?? tmpdir(), "grove-bench-mono-"));
  const parallelRounds = Number(process.env.GROVE_BENCH_MONO_PARALLEL_ROUNDS ?? 1);
  const poolSize = Number(process.env.GROVE_BENCH_MONO_POOL ?? 20);
  const label = `${(files / 1000).toFixed(0)}k files`;
  try {
    const repo = monorepoClone(bare, join(root, "repo"));
    const pooled = await startRun(root, repo, poolSize, rounds, parallelRounds);
    const cold = await startRun(root, repo, 0, rounds, 0);
    const changes = await changesRun(repo, rounds);
    const failed = (n: number) => (n ? ` (${n} FAILED)` : "");
    return [
      timedRow(
        `monorepo start, pool ${poolSize}: POST /sessions, agent up (${label})${failed(pooled.failed)}`,
        pooled.grove,
        pooled.raw,
        "≤ 0.3×",
        "`git worktree add`, same base: ",
      ),
      timedRow(`monorepo start, pool off (${label})${failed(cold.failed)}`, cold.grove, cold.raw, "reported", "`git worktree add`, same base: "),
      ...(pooled.parallel.length
        ? [timedRow(`monorepo: 20 parallel starts, pool ${poolSize} (${label})`, pooled.parallel, pooled.serialRaw, "≤ 0.3×", "20 serial `git worktree add`: ")]
        : []),
      {
        benchmark: `monorepo attach: git processes spawned`,
        grove: `${Math.max(...pooled.attachGit, ...cold.attachGit)}`,
        raw: "-",
        ratio: "-",
        target: "≤ 3",
      },
      timedRow(`monorepo changes: ${changes.files} changed (${label})`, changes.grove, changes.raw, "≤ 1.0×", "merge-base, then status ‖ diff --numstat: "),
      { benchmark: "monorepo changes: git processes per refresh", grove: String(changes.gitPerRound), raw: "3", ratio: "-", target: "reported" },
    ];
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
