import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DATABASES } from "../fixture/db.js";
import { gitSync, type TestRepo } from "../fixture/git.js";
import { openEvents, startTestServer, waitFor, waitForSession, type TestServer } from "../fixture/server.js";
import { registerRepo } from "./helpers.js";

type Frame = { type: string; data: { taskId?: string; repositoryId?: string }; at: string };

describe.each(DATABASES)("CHG-3 live changes from file-system watching (%s)", (kind) => {
  let srv: TestServer | undefined;
  let repo: TestRepo | undefined;
  afterEach(async () => {
    await srv?.close();
    srv = undefined;
    await repo?.cleanup();
  });

  it("CHG-3 a file written into a live task's worktree (outside any tool call), an agent write, and a commit each publish changes.updated within 2 s; watching stops with the agent", async () => {
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

    // No live agent → the worktree is no longer watched: no timer, no watcher, nothing published.
    expect((await srv.api("DELETE", `/sessions/${s.body.id}`)).status).toBe(204);
    await waitFor(() => !watch.watchedTasks().includes(t.body.id), "watch stopped");
    await new Promise((res) => setTimeout(res, 400));
    const n = updates().length;
    writeFileSync(join(wt, "after.txt"), "x\n");
    await new Promise((res) => setTimeout(res, 800));
    expect(updates().length).toBe(n);
    events.close();
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

  it("CHG-3 50 idle worktrees (10 of them watched with a live agent) → no git process spawned and no event during 30 s of idleness", async () => {
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
    // 40 of the 50 lose their agent (idle, unwatched); 10 keep a live, idle agent (watched).
    for (const id of sessions.slice(10)) expect((await srv.api("DELETE", `/sessions/${id}`)).status).toBe(204);
    const watch = srv.server.orchestrator.changesWatch;
    await waitFor(() => watch.watchedTasks().length === 10, "10 watched tasks");
    const events = await openEvents(srv.url);
    await new Promise((res) => setTimeout(res, 500)); // let launch-time debounces settle
    const git = srv.server.orchestrator.deps.git;
    const before = git.spawnCount;
    const framesBefore = events.frames.length;
    await new Promise((res) => setTimeout(res, 30_000));
    expect(git.spawnCount - before).toBe(0);
    expect(events.frames.slice(framesBefore).filter((f: Frame) => f.type === "changes.updated")).toEqual([]);
    events.close();
  }, 120_000);
});
