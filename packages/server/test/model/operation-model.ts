import { existsSync, readFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { expect } from "vitest";
import { freshDatabase } from "../fixture/db.js";
import { gitBlobs, gitSync, makeRepo, type TestRepo } from "../fixture/git.js";
import { apiClient, spawnServer, startTestServer, waitFor, waitForSession, type ChildServer, type DbKind, type TestServer } from "../fixture/server.js";

/** mulberry32: a small seeded PRNG, so a failing run is reproduced from its seed alone. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** What the model believes about one task. */
interface ModelTask {
  id: string;
  sessions: string[];
  /** Every file the task owns: path → content, and whether it is committed on the branch. */
  files: Map<string, { content: string; committed: boolean }>;
  archived: boolean;
  worktreePath?: string;
  branch?: string;
}

export type Op = "newTask" | "write" | "commit" | "extraSession" | "deleteSession" | "kill9" | "restart" | "rmWorktree" | "archive" | "unarchive";

// Cheap operations (a turn on a live agent) dominate; every kind still shows up in 60 steps.
const WEIGHTS: [Op, number][] = [
  ["newTask", 1.2],
  ["write", 10],
  ["commit", 4],
  ["extraSession", 1.2],
  ["deleteSession", 1.5],
  ["kill9", 0.4],
  ["restart", 0.6],
  ["rmWorktree", 1.2],
  ["archive", 0.9],
  ["unarchive", 0.9],
];

const MAX_TASKS = 3;

/**
 * The randomized operation model: a real `grove serve` child process (so `kill -9`
 * is real), the scripted agent, real git. After every step every file the model says a task
 * owns is in its worktree, on its branch (committed ones in the branch itself), and
 * `GET /doctor` is clean. Returns the operations run.
 */
export async function runModel(kind: DbKind, seed: number, steps: number): Promise<Op[]> {
  const random = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const db = await freshDatabase(kind);
  const repo: TestRepo = await makeRepo({ name: `model${seed}` });
  // WT-10: even seeds start tasks from a worktree pool, so its claims, refills and start-up
  // recovery are drawn among the other operations (kill -9 included).
  const pool: Record<string, string> = seed % 2 === 0 ? { GROVE_WORKTREE_POOL_SIZE: "1" } : {};
  const env: Record<string, string> = { GROVE_HOME: db.home, ...(db.databaseUrl ? { GROVE_DATABASE_URL: db.databaseUrl } : {}), ...pool };
  // In-process server for speed; a real child process only around a kill -9 step.
  const reuse = { home: db.home, databaseUrl: db.databaseUrl };
  let inproc: TestServer | undefined = await startTestServer(kind, reuse, pool);
  let child: ChildServer | undefined;
  let api = inproc.api;
  const output = () => child?.output() ?? "";
  const tasks: ModelTask[] = [];
  /** Sessions whose agent the model knows to be alive: prompting them is cheap (no relaunch). */
  const alive = new Set<string>();
  /** Mostly a session with a live agent (cheap turn), sometimes any (relaunch: session/load). */
  const pickSession = (t: ModelTask): string => {
    const warm = t.sessions.filter((s) => alive.has(s));
    return warm.length > 0 && random() < 0.8 ? pick(warm) : pick(t.sessions);
  };
  const ops: Op[] = [];
  let counter = 0;
  let repositoryId = "";

  const ok = async (method: string, path: string, body?: unknown, status = [200, 201, 202, 204]) => {
    const r = await api(method, path, body);
    if (!status.includes(r.status)) throw new Error(`${method} ${path} → ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  };
  const settle = async (sessionId: string) => {
    const s = await waitForSession(api, sessionId, ["waiting_for_input", "failed"], 30_000);
    if (s.state !== "waiting_for_input") throw new Error(`session ${sessionId} ${s.state}: ${JSON.stringify(s.lastError)}`);
  };
  /** Prompts `session` (or a new session when it has none) with `script`; returns the session id. */
  const run = async (t: ModelTask, script: string, session?: string): Promise<string> => {
    if (session) {
      await ok("POST", `/sessions/${session}/prompt`, { prompt: script });
      await settle(session);
      alive.add(session);
      return session;
    }
    const s = await ok("POST", `/tasks/${t.id}/sessions`, { prompt: script });
    t.sessions.push(s.id);
    await settle(s.id);
    alive.add(s.id);
    if (!t.worktreePath) {
      const ws = await ok("GET", `/sessions/${s.id}/workspace`);
      t.worktreePath = ws.repositories[0].worktreePath;
      t.branch = ws.repositories[0].worktreeBranch;
    }
    return s.id;
  };
  const write = async (t: ModelTask, session?: string) => {
    const path = `f${++counter}.txt`;
    const content = `s${seed}-${counter}`;
    await run(t, `write ${path} ${content}`, session);
    t.files.set(path, { content, committed: false });
  };
  const restartInProcess = async () => {
    alive.clear();
    await inproc?.stop();
    inproc = await startTestServer(kind, reuse, pool);
    api = inproc.api;
  };
  /** SES-6 after a crash: a child server runs an agent turn, is killed with SIGKILL, and the in-process server takes over. */
  const kill9 = async () => {
    await inproc?.stop();
    inproc = undefined;
    alive.clear();
    child = await spawnServer(env, { startTimeoutMs: 180_000 });
    api = apiClient(child.url);
    const t = live().find((x) => x.sessions.length > 0);
    if (t) await write(t, pickSession(t));
    child.child.kill("SIGKILL");
    await child.exited;
    child = undefined;
    await restartInProcess();
  };
  const live = () => tasks.filter((t) => !t.archived);

  const step = async (op: Op): Promise<boolean> => {
    const active = live();
    switch (op) {
      case "newTask": {
        if (active.length >= MAX_TASKS) return false;
        const t = await ok("POST", "/tasks", { title: `Model ${seed} ${tasks.length}`, repositories: [{ repositoryId }] });
        const m: ModelTask = { id: t.id, sessions: [], files: new Map(), archived: false };
        tasks.push(m);
        await write(m);
        return true;
      }
      case "write": {
        if (active.length === 0) return false;
        const t = pick(active);
        await write(t, t.sessions.length > 0 ? pickSession(t) : undefined);
        return true;
      }
      case "commit": {
        const t = active.find((x) => [...x.files.values()].some((f) => !f.committed) && x.sessions.length > 0);
        if (!t) return false;
        await run(t, `commit model ${++counter}`, pickSession(t));
        for (const f of t.files.values()) f.committed = true;
        return true;
      }
      case "extraSession": {
        if (active.length === 0) return false;
        await write(pick(active));
        return true;
      }
      case "deleteSession": {
        const t = active.find((x) => x.sessions.length > 0);
        if (!t) return false;
        const id = pick(t.sessions);
        await ok("DELETE", `/sessions/${id}`);
        t.sessions = t.sessions.filter((s) => s !== id);
        return true;
      }
      case "kill9":
        await kill9();
        return true;
      case "restart":
        await restartInProcess();
        return true;
      case "rmWorktree": {
        const t = active.find((x) => x.worktreePath && existsSync(x.worktreePath));
        if (!t) return false;
        // By hand, under a possibly live agent: uncommitted files go with the directory
        // (the person's own doing); the branch and its commits stay.
        await rm(t.worktreePath!, { recursive: true, force: true });
        // The watcher stops the task's agents (WT-5).
        for (const s of t.sessions) alive.delete(s);
        for (const [p, f] of t.files) if (!f.committed) t.files.delete(p);
        if (t.sessions.length > 0) await write(t, pick(t.sessions));
        else await ok("POST", `/tasks/${t.id}/environment/restore`);
        return true;
      }
      case "archive": {
        if (active.length === 0) return false;
        const t = pick(active);
        const job = await ok("POST", `/tasks/${t.id}/archive`);
        await waitFor(
          async () => {
            const jobs = (await api("GET", `/cleanup-jobs?taskId=${t.id}`)).body as { id: string; state: string }[];
            const j = jobs.find((x) => x.id === job.jobId);
            if (j?.state === "failed") throw new Error(`archive job failed: ${JSON.stringify(j)}`);
            return j?.state === "succeeded";
          },
          `archive of ${t.id}`,
          30_000,
        );
        t.archived = true;
        for (const s of t.sessions) alive.delete(s);
        return true;
      }
      case "unarchive": {
        const t = tasks.find((x) => x.archived);
        if (!t || active.length >= MAX_TASKS) return false;
        await ok("POST", `/tasks/${t.id}/unarchive`);
        t.archived = false;
        // An OLD session is prompted again (its saved work comes back), or a new one if none is left.
        await write(t, t.sessions.length > 0 ? pick(t.sessions) : undefined);
        return true;
      }
    }
  };

  const check = async () => {
    for (const t of live()) {
      if (!t.worktreePath) continue;
      const branch = gitSync(t.worktreePath, "rev-parse", "--abbrev-ref", "HEAD").trim();
      expect(branch, `task ${t.id} branch`).toBe(t.branch);
      // Every committed file's content on the branch, read by one git process per task and step.
      const onBranch = gitBlobs(
        t.worktreePath,
        [...t.files].filter(([, f]) => f.committed).map(([path]) => `${t.branch}:${path}`),
      );
      for (const [path, f] of t.files) {
        expect(readFileSync(join(t.worktreePath, path), "utf8"), `task ${t.id} file ${path}`).toBe(f.content);
        if (f.committed) expect(onBranch.get(`${t.branch}:${path}`), `task ${t.id} committed ${path}`).toBe(f.content);
      }
    }
    const doctor = await ok("GET", "/doctor");
    // The whole findings in the message: the diff of a failed toEqual abbreviates them.
    expect(doctor.findings, `grove doctor: ${JSON.stringify(doctor.findings)}`).toEqual([]);
  };

  try {
    repositoryId = (await ok("POST", "/repositories", { path: repo.path })).id;
    let done = 0;
    let guard = 0;
    while (done < steps && guard++ < steps * 20) {
      const total = WEIGHTS.reduce((a, [, w]) => a + w, 0);
      let x = random() * total;
      const op = WEIGHTS.find(([, w]) => (x -= w) < 0)?.[0] ?? "write";
      try {
        const t0 = Date.now();
        if (!(await step(op))) continue;
        const t1 = Date.now();
        await check();
        if (process.env.GROVE_MODEL_TRACE) process.stderr.write(`model ${seed} ${op} ${t1 - t0}ms check ${Date.now() - t1}ms\n`);
      } catch (e) {
        const msg = e instanceof Error ? e.message : String(e);
        throw new Error(
          `operation model failed: seed=${seed} kind=${kind} step=${done} op=${op}\nops so far: ${ops.join(" ")}\n${msg}\n--- child server output (tail) ---\n${output().slice(-3000)}`,
          { cause: e },
        );
      }
      ops.push(op);
      done += 1;
    }
    return ops;
  } finally {
    if (child) {
      child.child.kill("SIGKILL");
      await child.exited;
    }
    await inproc?.stop();
    await db.drop();
    await repo.cleanup();
  }
}
