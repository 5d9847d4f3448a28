import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServer } from "../src/app.js";
import { timedRow } from "./stats.js";
import { generatedRepo, gitIn, type Row } from "./util.js";

const SLOTS = 5;
const FILES = Number(process.env.GROVE_BENCH_ARCHIVE_FILES ?? 2000);

/**
 * Archive of a task with 5 worktrees (`POST /tasks/:id/archive` until the job has succeeded:
 * agents stopped, dirtiness checked, worktrees removed, rows tombstoned) against 5 raw
 * `git worktree remove` of equivalent worktrees, timed in the same run (A B A B). Then the idle
 * worker: git processes spawned and CPU used by the server process over 2 s of idleness.
 */
export async function archiveBench(rounds: number): Promise<Row[]> {
  const repos = Array.from({ length: SLOTS }, (_, i) => generatedRepo(FILES, `grove-bench-arch${i}-`));
  const home = mkdtempSync(join(process.env.GROVE_BENCH_TMP ?? tmpdir(), "grove-bench-home-"));
  const server = await startServer({
    env: { ...process.env, GROVE_HOME: home, GROVE_PORT: "0", GROVE_LOG_LEVEL: "warn", GROVE_DATABASE_URL: "" },
    quiet: true,
  });
  const api = async (method: string, path: string, body?: unknown) => {
    const r = await fetch(`${server.url}/api/v1${path}`, {
      method,
      headers: method === "GET" ? {} : { "content-type": "application/json" },
      body: body ? JSON.stringify(body) : undefined,
    });
    return (await r.json()) as any;
  };
  const repoIds: string[] = [];
  for (const [i, path] of repos.entries()) repoIds.push((await api("POST", "/repositories", { path, name: `bench-${i}` })).id);
  const grove: number[] = [];
  const raw: number[] = [];
  let idleGit: number;
  let idleCpuMs: number;
  try {
    for (let round = 0; round < rounds; round++) {
      // Raw side prepared first, aged like the task's worktrees (index refreshed, not racy).
      const paths = repos.map((repo, i) => {
        const p = join(home, `raw-${round}-${i}`);
        gitIn(repo, "worktree", "add", "-q", "-b", `raw-${round}`, "--", p, "main");
        gitIn(p, "status", "--porcelain");
        return p;
      });
      // A: Grove archive of a task with 5 worktrees and a live agent.
      const task = await api("POST", "/tasks", { title: `bench ${round}`, repositories: repoIds.map((repositoryId) => ({ repositoryId })) });
      const session = await api("POST", `/tasks/${task.id}/sessions`, {});
      if (session.state !== "waiting_for_input") throw new Error(`session did not start: ${JSON.stringify(session)}`);
      const done = new Promise<string>((res) => {
        const off = server.deps.bus.subscribe((f) => {
          if (f.type !== "cleanup_job.updated") return;
          const job = (f.data as { job: { taskId: string; state: string } }).job;
          if (job.taskId === task.id && ["succeeded", "failed", "retry_wait"].includes(job.state)) {
            off();
            res(job.state);
          }
        });
      });
      const g0 = performance.now();
      await api("POST", `/tasks/${task.id}/archive`);
      const state = await done;
      grove.push(performance.now() - g0);
      if (state !== "succeeded") throw new Error(`archive job ended ${state}`);
      // B: the raw tool, 5 × `git worktree remove` (which checks cleanliness itself, as we do).
      const r0 = performance.now();
      for (const [i, p] of paths.entries()) gitIn(repos[i]!, "worktree", "remove", "--", p);
      raw.push(performance.now() - r0);
    }
    // Idle: nothing due, so the worker must neither poll git nor burn CPU.
    const git0 = server.deps.git.spawnCount;
    const cpu0 = process.cpuUsage();
    await new Promise((r) => setTimeout(r, 2000));
    const cpu = process.cpuUsage(cpu0);
    idleGit = server.deps.git.spawnCount - git0;
    idleCpuMs = (cpu.user + cpu.system) / 1000;
  } finally {
    await server.close();
    for (const r of repos) rmSync(r, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  }
  return [
    timedRow(`archive: task with ${SLOTS} worktrees (${FILES} files each) → job succeeded`, grove, raw, "≤ 1.5×"),
    { benchmark: "cleanup worker idle 2 s: git processes spawned", grove: String(idleGit), raw: "-", ratio: "-", target: "0" },
    { benchmark: "cleanup worker idle 2 s: server CPU", grove: `${idleCpuMs.toFixed(1)} ms`, raw: "-", ratio: "-", target: "≈ 0" },
  ];
}
