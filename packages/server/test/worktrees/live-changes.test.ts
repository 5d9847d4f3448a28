import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ONE_DATABASE } from "../fixture/db.js";
import { gitSync, type TestRepo } from "../fixture/git.js";
import { openEvents, startTestServer, waitFor, waitForSession, type TestServer } from "../fixture/server.js";
import { registerRepo } from "./helpers.js";
import { isAlive } from "../../src/agents/process-info.js";

type Frame = { type: string; data: { taskId?: string; repositoryId?: string }; at: string };

describe.each(ONE_DATABASE)("CHG-3 live changes from file-system watching (%s)", (kind) => {
  let srv: TestServer | undefined;
  let repo: TestRepo | undefined;
  afterEach(async () => {
    await srv?.close();
    srv = undefined;
    await repo?.cleanup();
  });

  it("CHG-3 a file written into a task's worktree (outside any tool call), an agent write, and a commit each publish changes.updated within 2 s; a person's edit with no agent left is live too", async () => {
    srv = await startTestServer(kind);
    const r = await registerRepo(srv, "lively");
    repo = r.repo;
    const t = await srv.api("POST", "/tasks", { title: "Live", repositories: [{ repositoryId: r.id }] });
    const s = await srv.api("POST", `/tasks/${t.body.id}/sessions`, {});
    await waitForSession(srv.api, s.body.id, ["waiting_for_input"]);
    const wt = (await srv.api("GET", `/sessions/${s.body.id}/workspace`)).body.workspacePath as string;
    const watch = srv.server.orchestrator.changesWatch;
    await waitFor(() => watch.watchedTasks().includes(t.body.id), "task watched");
    const events = await openEvents(srv.url);
    const updates = () => (events.frames as Frame[]).filter((f) => f.type === "changes.updated" && f.data.taskId === t.body.id);
    const within = async (what: string, act: () => unknown) => {
      const n = updates().length;
      const t0 = Date.now();
      await act();
      await waitFor(() => updates().length > n, what, 2000, 20);
      return Date.now() - t0;
    };

    // Written by something other than a tool call (a real agent's own shell, an editor).
    await within("direct write", () => writeFileSync(join(wt, "direct.txt"), "x\n"));
    expect(updates().at(-1)!.data.repositoryId).toBe(r.id);
    // A new directory is watched as it appears: a file inside it is seen too.
    await within("mkdir", () => mkdirSync(join(wt, "fresh", "deeper"), { recursive: true }));
    await new Promise((res) => setTimeout(res, 500)); // the debounce settles; the new directories are watched
    await within("write in a new directory", () => writeFileSync(join(wt, "fresh", "deeper", "f.txt"), "x\n"));
    // A commit made outside Grove (HEAD, index and reflog change).
    await within("commit", () => gitSync(wt, "-c", "user.name=T", "-c", "user.email=t@x.invalid", "commit", "-q", "--allow-empty", "-m", "outside"));
    // The agent itself.
    await within("agent write", () => srv!.api("POST", `/sessions/${s.body.id}/prompt`, { prompt: "write by-agent.txt hi" }));
    await waitForSession(srv.api, s.body.id, ["waiting_for_input"]);

    // No session, no agent: a person's own edit is still published live (item 7).
    expect((await srv.api("DELETE", `/sessions/${s.body.id}`)).status).toBe(204);
    await new Promise((res) => setTimeout(res, 400));
    expect(watch.watchedTasks()).toContain(t.body.id);
    await within("a person's edit with no agent", () => writeFileSync(join(wt, "after.txt"), "x\n"));
    events.close();
  });

  it("WT-5 the watcher notices a vanished worktree root at once: the task's agents are stopped, the row is projected missing (API and doctor); the next prompt recreates it", async () => {
    srv = await startTestServer(kind);
    const r = await registerRepo(srv, "vanishing");
    repo = r.repo;
    const t = await srv.api("POST", "/tasks", { title: "Vanish", repositories: [{ repositoryId: r.id }] });
    const s = await srv.api("POST", `/tasks/${t.body.id}/sessions`, { prompt: "write a.txt 1" });
    await waitForSession(srv.api, s.body.id, ["waiting_for_input"]);
    const wt = (await srv.api("GET", `/sessions/${s.body.id}/workspace`)).body.workspacePath as string;
    const deps = srv.server.deps;
    await waitFor(() => srv!.server.orchestrator.changesWatch.watchedTasks().includes(t.body.id), "task watched");
    const pid = deps.agents.get(s.body.id)!.pid;
    rmSync(wt, { recursive: true, force: true });
    const t0 = Date.now();
    await waitFor(() => deps.agents.get(s.body.id) === undefined && !isAlive(pid), "agent stopped", 5000, 10);
    expect(Date.now() - t0).toBeLessThan(3000);
    expect(existsSync(wt)).toBe(false);
    const env = (await srv.api("GET", `/tasks/${t.body.id}/environment`)).body;
    expect(env.repositories[0]).toMatchObject({ worktreeState: "missing" });
    const doctor = (await srv.api("GET", "/doctor")).body;
    expect(doctor.findings).toEqual([expect.objectContaining({ kind: "missing", path: wt, taskId: t.body.id })]);
    expect((await srv.api("POST", `/sessions/${s.body.id}/prompt`, { prompt: "write b.txt 2" })).status).toBe(202);
    await waitForSession(srv.api, s.body.id, ["waiting_for_input"]);
    expect(existsSync(join(wt, "b.txt"))).toBe(true);
    expect((await srv.api("GET", "/doctor")).body.ok).toBe(true);
    await waitFor(() => srv!.server.orchestrator.changesWatch.watchedTasks().includes(t.body.id), "watched again");
  });
});

// The idle bound is about timers and watchers, not the database: run once (sqlite) to keep the suite lean.
describe("CHG-3 idle worktrees are not polled", () => {
  let srv: TestServer | undefined;
  let repo: TestRepo | undefined;
  afterEach(async () => {
    await srv?.close();
    srv = undefined;
    await repo?.cleanup();
  });

  it("CHG-3 50 idle worktrees, all watched (10 with a live agent, 40 without) → no git process spawned and no event during 30 s of idleness", async () => {
    // The 30 s are the server's own clock: every timer it sets runs on a fake clock that follows
    // real time while the worktrees are made, then jumps 30 s at once. Every interval, debounce
    // and timeout due in those 30 s fires (a poll would spawn git there) without the test
    // waiting for them.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"], shouldAdvanceTime: true });
    try {
      srv = await startTestServer("sqlite");
      const r = await registerRepo(srv, "idle", {}, { "a/b/c.txt": "x\n", "d/e.txt": "y\n" });
      repo = r.repo;
      const sessions: string[] = [];
      for (let batch = 0; batch < 10; batch++) {
        const made = await Promise.all(
          Array.from({ length: 5 }, async (_, i) => {
            const t = await srv!.api("POST", "/tasks", { title: `Idle ${batch}-${i}`, repositories: [{ repositoryId: r.id }] });
            const s = await srv!.api("POST", `/tasks/${t.body.id}/sessions`, {});
            expect(s.body.state).toBe("waiting_for_input");
            return s.body.id as string;
          }),
        );
        sessions.push(...made);
      }
      // 40 of the 50 lose their agent; 10 keep a live, idle agent. Every worktree stays watched.
      for (const id of sessions.slice(10)) expect((await srv.api("DELETE", `/sessions/${id}`)).status).toBe(204);
      const watch = srv.server.orchestrator.changesWatch;
      await waitFor(() => watch.watchedTasks().length === 50, "50 watched tasks");
      const events = await openEvents(srv.url);
      const published: Frame[] = [];
      const off = srv.server.deps.bus.subscribe((f) => published.push(f as Frame));
      await vi.advanceTimersByTimeAsync(500); // launch-time debounces settle
      const git = srv.server.deps.git;
      const before = git.spawnCount;
      const framesBefore = events.frames.length;
      published.length = 0;
      await vi.advanceTimersByTimeAsync(30_000);
      // One request answered after the jump: whatever the timers started has been sent by then.
      expect((await srv.api("GET", "/tasks")).status).toBe(200);
      off();
      expect(git.spawnCount - before).toBe(0);
      expect(published.filter((f) => f.type === "changes.updated")).toEqual([]);
      expect(events.frames.slice(framesBefore).filter((f: Frame) => f.type === "changes.updated")).toEqual([]);
      events.close();
      await srv.close();
      srv = undefined;
    } finally {
      vi.useRealTimers();
    }
    // Creating 50 sessions (50 agent starts) dominates; 300 s leaves room on a loaded 2-core runner.
  }, 300_000);
});
