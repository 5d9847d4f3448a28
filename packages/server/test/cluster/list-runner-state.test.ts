import type { Kysely } from "kysely";
import { describe, expect, it } from "vitest";
import type { DB } from "../../src/store/schema.js";
import { runGrove } from "../cli/run-cli.js";
import { DATABASES } from "../fixture/db.js";
import { makeRepo } from "../fixture/git.js";
import { openEvents, startTestServer, waitFor, type TestServer } from "../fixture/server.js";
import { cleanupsAfterEach } from "../fixture/cleanups.js";

type Row = { id: string; runnerId: string | null; runnerState: string | null };

/** A statement on the server's own database (its store's transaction hands out the Kysely handle). */
function onDb(srv: TestServer, fn: (db: Kysely<DB>) => Promise<unknown>): Promise<unknown> {
  return srv.server.deps.store.transaction((trx) => fn(trx as Kysely<DB>));
}

describe.each(DATABASES)("task lists show the runner of each task's environment (%s)", { timeout: 120_000 }, (kind) => {
  const cleanups = cleanupsAfterEach();

  it("RUN-19 GET /tasks (plain, paged, summary), task.summary frames and grove task ls/show carry runnerId/runnerState, computed at read time; a stale heartbeat and its return reach clients as runner.updated", async () => {
    const srv = await startTestServer(kind, undefined, { GROVE_RUNNER_ID: "runner_here", GROVE_RUNNER_HEARTBEAT_MS: "100" });
    cleanups.push(() => srv.close());
    const repo = await makeRepo();
    cleanups.push(() => repo.cleanup());
    const reg = await srv.api("POST", "/repositories", { path: repo.path });
    expect(reg.status).toBe(201);
    const newTask = async (title: string) => {
      const t = await srv.api("POST", "/tasks", { title, repositories: [{ repositoryId: reg.body.id }] });
      expect(t.status).toBe(201);
      return t.body.id as string;
    };
    const none = await newTask("no environment yet");
    const here = await newTask("on this runner");
    const ghost = await newTask("on a runner that goes quiet");
    const unknown = await newTask("on a runner without a row");

    // Another runner's row, seen a moment ago with a long interval: online until aged below.
    const now = new Date().toISOString();
    await srv.server.deps.store.runners.register({
      id: "runner_ghost",
      host: "elsewhere",
      url: "http://127.0.0.1:9",
      labels: [],
      maxAgents: null,
      liveAgents: 0,
      version: "0.0.0",
      heartbeatMs: 60_000,
      startedAt: now,
      lastSeenAt: now,
      stoppedAt: null,
      credentialKeyId: null,
    });
    // Environments written as placement would have (the files are not what this test is about).
    await onDb(srv, (db) =>
      db
        .insertInto("task_environments")
        .values([
          {
            id: "env_here",
            task_id: here,
            status: "ready",
            workspace_path: null,
            runner_id: "runner_here",
            materializer_session_id: null,
            created_at: now,
            updated_at: now,
          },
          {
            id: "env_ghost",
            task_id: ghost,
            status: "ready",
            workspace_path: null,
            runner_id: "runner_ghost",
            materializer_session_id: null,
            created_at: now,
            updated_at: now,
          },
          {
            id: "env_unknown",
            task_id: unknown,
            status: "ready",
            workspace_path: null,
            runner_id: "runner_nowhere",
            materializer_session_id: null,
            created_at: now,
            updated_at: now,
          },
        ])
        .execute(),
    );
    const events = await openEvents(srv.url);
    cleanups.push(async () => events.close());

    const states = (rows: Row[]) => Object.fromEntries(rows.map((r) => [r.id, [r.runnerId, r.runnerState]]));
    const everyView = async () => {
      const plain = (await srv.api("GET", "/tasks")).body as Row[];
      const paged: Row[] = [];
      let cursor: string | null = null;
      do {
        const page: { body: { items: Row[]; nextCursor: string | null } } = await srv.api(
          "GET",
          `/tasks?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
        );
        paged.push(...page.body.items);
        cursor = page.body.nextCursor;
      } while (cursor);
      const board = (await srv.api("GET", "/tasks?view=summary&order=newest&limit=2")).body as { items: Row[]; nextCursor: string };
      const board2 = (await srv.api("GET", `/tasks?view=summary&order=newest&limit=2&cursor=${encodeURIComponent(board.nextCursor)}`)).body as { items: Row[] };
      const summaries = (await srv.api("GET", "/tasks?view=summary")).body as Row[];
      const one = await Promise.all([none, here, ghost, unknown].map(async (id) => (await srv.api("GET", `/tasks/${id}`)).body as Row));
      // Every view says the same, and so does GET /tasks/:id.
      for (const other of [paged, [...board.items, ...board2.items], summaries, one]) expect(states(other)).toEqual(states(plain));
      return states(plain);
    };

    expect(await everyView()).toEqual({
      [none]: [null, null],
      [here]: ["runner_here", "online"],
      [ghost]: ["runner_ghost", "online"],
      [unknown]: ["runner_nowhere", "offline"],
    });

    // One join per page, not a read per task: count the store calls a list read makes.
    const store = srv.server.deps.store;
    const calls = { join: 0, perTask: 0 };
    const { taskRunners } = store.placement;
    const { get } = store.runners;
    const { getEnvironmentByTask } = store;
    store.placement.taskRunners = (ids) => (calls.join++, taskRunners.call(store.placement, ids));
    store.runners.get = (id) => (calls.perTask++, get.call(store.runners, id));
    store.getEnvironmentByTask = (id) => (calls.perTask++, getEnvironmentByTask.call(store, id));
    for (const q of ["", "?limit=10", "?view=summary&order=newest&limit=10"]) expect((await srv.api("GET", `/tasks${q}`)).status).toBe(200);
    expect(calls).toEqual({ join: 3, perTask: 0 });
    Object.assign(store.placement, { taskRunners });
    Object.assign(store.runners, { get });
    Object.assign(store, { getEnvironmentByTask });

    // The registry watch's first reading of the ghost only records it (online); taken here, the
    // aging below is a change it reports, however late the heartbeats run on a busy machine.
    await srv.server.orchestrator.runners.watchOthers();
    // The ghost's heartbeat goes stale: nobody announces it, the next read says so.
    const old = new Date(Date.now() - 10 * 60_000).toISOString();
    await onDb(srv, (db) => db.updateTable("runners").set({ last_seen_at: old }).where("id", "=", "runner_ghost").execute());
    expect((await everyView())[ghost]).toEqual(["runner_ghost", "offline"]);
    // Clients hear it from this runner's own watch of the registry (one frame, not relayed).
    const offlineFrames = await waitFor(
      () => {
        const f = events.frames.filter((x) => x.type === "runner.updated" && x.data.runner.id === "runner_ghost");
        return f.length > 0 && f;
      },
      "runner.updated offline",
      60_000,
    );
    expect(offlineFrames.map((f) => f.data.runner.state)).toEqual(["offline"]);
    // A summary frame of that task (any change to it) carries the state too.
    expect((await srv.api("PATCH", `/tasks/${ghost}`, { title: "renamed while its runner is away" })).status).toBe(200);
    const summary = await waitFor(
      () => events.frames.find((x) => x.type === "task.summary" && x.data.summary.id === ghost && x.data.summary.title.startsWith("renamed")),
      "task.summary",
    );
    expect(summary.data.summary).toMatchObject({ runnerId: "runner_ghost", runnerState: "offline" });

    // The CLI says what the API will answer operations on it: runner_offline.
    const ls = await runGrove(["task", "ls", "--server", srv.url]);
    expect(ls.code).toBe(0);
    const lines = ls.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^ID\s+STATE\s+RUNNER\s+TITLE$/);
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(new RegExp(`^${none}\\s+To do\\s+-\\s+no environment yet$`)),
        expect.stringMatching(new RegExp(`^${here}\\s+To do\\s+runner_here\\s+on this runner$`)),
        expect.stringMatching(new RegExp(`^${ghost}\\s+To do\\s+runner_ghost runner_offline\\s+renamed while its runner is away$`)),
        expect.stringMatching(new RegExp(`^${unknown}\\s+To do\\s+runner_nowhere runner_offline\\s+on a runner without a row$`)),
      ]),
    );
    const show = await runGrove(["task", "show", ghost, "--server", srv.url]);
    expect(show.stdout).toMatch(/^runner: runner_ghost runner_offline \(/m);
    expect(JSON.parse((await runGrove(["task", "ls", "--json", "--server", srv.url])).stdout)).toEqual(
      expect.arrayContaining([expect.objectContaining({ id: ghost, runnerState: "offline" })]),
    );

    // It beats again: the next read and a runner.updated frame say online.
    await onDb(srv, (db) => db.updateTable("runners").set({ last_seen_at: new Date().toISOString() }).where("id", "=", "runner_ghost").execute());
    expect((await everyView())[ghost]).toEqual(["runner_ghost", "online"]);
    await waitFor(
      () => events.frames.some((x) => x.type === "runner.updated" && x.data.runner.id === "runner_ghost" && x.data.runner.state === "online"),
      "runner.updated online",
      60_000,
    );
    expect(events.frames.filter((x) => x.type === "runner.updated" && x.data.runner.id === "runner_ghost").map((f) => f.data.runner.state)).toEqual([
      "offline",
      "online",
    ]);
    expect((await runGrove(["task", "show", ghost, "--server", srv.url])).stdout).toMatch(/^runner: runner_ghost online$/m);
  });
});
