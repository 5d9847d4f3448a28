import { execFile } from "node:child_process";
import { accessSync, constants, mkdirSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { computeChanges } from "../src/git/changes.js";
import { GitRunner } from "../src/git/runner.js";
import { WorktreeManager } from "../src/git/worktrees.js";
import { timedRow } from "./stats.js";
import { generatedRepo, gitIn, type Row } from "./util.js";

const run = promisify(execFile);
const ENV = { ...process.env, LC_ALL: "C", GIT_OPTIONAL_LOCKS: "0" };

/** Mass file creation on the temp disk slows later runs; use a tmpfs when there is one. */
export function benchTmp(): string | undefined {
  if (process.env.GROVE_BENCH_TMP) return process.env.GROVE_BENCH_TMP;
  try {
    accessSync("/dev/shm", constants.W_OK);
    return "/dev/shm";
  } catch {
    return undefined;
  }
}

/** The raw git work behind CHG-1: merge-base, then status and numstat against it (in parallel). */
export async function rawChanges(cwd: string): Promise<number> {
  const t0 = performance.now();
  const mb = (await run("git", ["merge-base", "HEAD", "main"], { cwd, env: ENV })).stdout.trim();
  await Promise.all([
    run("git", ["status", "--porcelain=v2", "-z", "--untracked-files=all"], { cwd, env: ENV, maxBuffer: 1 << 30 }),
    run("git", ["diff", "--numstat", "-z", mb], { cwd, env: ENV, maxBuffer: 1 << 30 }),
  ]);
  return performance.now() - t0;
}

/**
 * CHG-1 at scale: a repository of 50,000 files where 5,000 changed (2,000 committed on the
 * branch, 2,000 unstaged, 500 deleted, 500 untracked). Grove's `computeChanges` against the raw
 * git commands it is defined by, alternated A B A B in this process; peak RSS sampled while
 * Grove runs.
 */
export async function changesBench(rounds = 5): Promise<Row[]> {
  const saved = process.env.GROVE_BENCH_TMP;
  const tmp = benchTmp();
  if (tmp) process.env.GROVE_BENCH_TMP = tmp;
  const repo = generatedRepo(50_000, "grove-bench-changes-");
  if (saved === undefined) delete process.env.GROVE_BENCH_TMP;
  else process.env.GROVE_BENCH_TMP = saved;
  const file = (i: number) => join(repo, `d${Math.floor(i / 500)}`, `e${Math.floor(i / 50) % 10}`, `f${i}.txt`);
  try {
    gitIn(repo, "switch", "-q", "-c", "task");
    // Disjoint residues mod 10, so exactly 5,000 paths change.
    for (let i = 0; i < 2000; i++) writeFileSync(file(i * 10), `committed change ${i}\nline\n`);
    gitIn(repo, "commit", "-qam", "task work");
    // A linked worktree of the same commit gets the same uncommitted work (the SBX-4 row below).
    const linked = `${repo}-linked`;
    gitIn(repo, "worktree", "add", "-q", "-b", "task-linked", linked, "task");
    for (const root of [repo, linked]) {
      const at = (i: number) => join(root, file(i).slice(repo.length + 1));
      for (let i = 0; i < 2000; i++) writeFileSync(at(i * 10 + 1), `unstaged change ${i}\n`);
      for (let i = 0; i < 500; i++) unlinkSync(at(i * 10 + 2));
      mkdirSync(join(root, "new"), { recursive: true });
      for (let i = 0; i < 500; i++) writeFileSync(join(root, "new", `u${i}.txt`), `untracked ${i}\nmore\n`);
    }

    const git = new GitRunner();
    const grove: number[] = [];
    const raw: number[] = [];
    let peak = process.memoryUsage().rss;
    let files = 0;
    const groveRound = async () => {
      const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
      const t0 = performance.now();
      const c = await computeChanges(git, { worktreePath: repo, baseBranch: "main" });
      grove.push(performance.now() - t0);
      clearInterval(sampler);
      files = c.files.length;
    };
    // Warm-up of both (the first status of a fresh checkout refreshes the index stat data): not measured.
    await rawChanges(repo);
    await computeChanges(git, { worktreePath: repo, baseBranch: "main" });
    // A B, then B A: drift in the machine's load falls on both sides alike.
    for (let i = 0; i < rounds; i++) {
      if (i % 2 === 0) raw.push(await rawChanges(repo));
      await groveRound();
      if (i % 2 === 1) raw.push(await rawChanges(repo));
    }
    // SBX-4: the same work in a linked worktree, pinned to its recorded git dir (link check, `-c`
    // flags, GIT_DIR/GIT_WORK_TREE) against raw git run in that worktree.
    const wt = new WorktreeManager(git);
    const pinned: number[] = [];
    const rawLinked: number[] = [];
    const pinnedRound = async () => {
      const t0 = performance.now();
      await computeChanges(git, { worktreePath: await wt.pin({ repoPath: repo, worktreePath: linked }), baseBranch: "main" });
      pinned.push(performance.now() - t0);
    };
    await rawChanges(linked);
    await pinnedRound();
    pinned.length = 0;
    for (let i = 0; i < rounds; i++) {
      if (i % 2 === 0) rawLinked.push(await rawChanges(linked));
      await pinnedRound();
      if (i % 2 === 1) rawLinked.push(await rawChanges(linked));
    }
    return [
      timedRow(`changes: 50k files, ${files} changed`, grove, raw, "≤ 1.15×", "merge-base, then status ‖ diff --numstat: "),
      timedRow("changes: the same in a pinned linked worktree (SBX-4)", pinned, rawLinked, "≤ 1.15×", "raw git in that worktree: "),
      { benchmark: "changes: peak RSS of the process", grove: `${(peak / 1048576).toFixed(0)} MB`, raw: "-", ratio: "-", target: "reported" },
    ];
  } finally {
    rmSync(repo, { recursive: true, force: true });
    rmSync(`${repo}-linked`, { recursive: true, force: true });
  }
}
