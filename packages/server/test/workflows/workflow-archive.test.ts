import { afterEach, describe, expect, it, vi } from "vitest";
import { inProcessRunner, sharedDatabase, type Cleanups } from "../cluster/helpers.js";
import { DATABASES } from "../fixture/db.js";
import { gitSync, makeRepo } from "../fixture/git.js";
import { startTestServer, waitFor, waitForSession, type TestServer } from "../fixture/server.js";
import { jobsOf } from "../lifecycle/helpers.js";
import { runsOf } from "./helpers.js";

const DAY = 86_400_000;
const archiving = (days: number) => `steps:\n  - id: review\n  - id: done\n    archiveAfterDays: ${days}\n`;

/** The server's clock is vitest's: its timers and `Date` follow real time and jump when the test moves them. */
function fakeClock(): void {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"], shouldAdvanceTime: true });
  vi.setSystemTime(Date.parse("2026-06-01T10:00:00.000Z"));
}

/** Heartbeats and the pull-request poll far apart: the days the test jumps fire few timers. */
const QUIET = { GROVE_RUNNER_HEARTBEAT_MS: "600000", GROVE_PR_REFRESH_MS: "0" };

const archiver = (srv: TestServer) => srv.server.orchestrator.workflows.engine.archiver;
const taskOf = async (srv: TestServer, id: string) => (await srv.api("GET", `/tasks/${id}`)).body as { state: string; archivedAt: string | null };

describe.each(DATABASES)("WF-2.17 archive after N days in a step (%s)", { timeout: 240_000 }, (kind) => {
  const cleanups: Cleanups = [];
  afterEach(async () => {
    vi.useRealTimers();
    for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
  });

  it("WF-2.17 the clock past N days in Done → archived once through the durable archive (work saved); a task moved out before is not archived", async () => {
    fakeClock();
    const srv = await startTestServer(kind, undefined, QUIET);
    cleanups.push(() => srv.close());
    const repo = await makeRepo({ name: "archive-days" });
    cleanups.push(() => repo.cleanup());
    const repositoryId = (await srv.api("POST", "/repositories", { path: repo.path })).body.id as string;
    const bad = await srv.api("PUT", "/workflows/tidy", archiving(0));
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: "invalid_workflow", details: { line: 4, path: "steps.1.archiveAfterDays" } });
    expect((await srv.api("PUT", "/workflows/tidy", archiving(2))).status).toBe(200);

    const task = async (title: string) => (await srv.api("POST", "/tasks", { title, repositories: [{ repositoryId }] })).body.id as string;
    const kept = await task("stays in Done");
    const s = await srv.api("POST", `/tasks/${kept}/sessions`, { prompt: "write a.txt one\ncommit one\nwrite b.txt wip" });
    await waitForSession(srv.api, s.body.id, ["waiting_for_input"]);
    const slot = (await srv.api("GET", `/sessions/${s.body.id}/workspace`)).body.repositories[0];
    const leaving = await task("leaves Done");
    for (const id of [kept, leaving]) expect((await srv.api("PATCH", `/tasks/${id}`, { state: "done" })).status).toBe(200);
    // Both entries recorded (the engine handled the moves), the archiver armed after them.
    await srv.server.orchestrator.workflows.engine.flush();
    await archiver(srv).check();
    expect(archiver(srv).nextCheckAt()).toBeDefined();

    await vi.advanceTimersByTimeAsync(DAY);
    expect((await taskOf(srv, kept)).archivedAt).toBeNull();
    // A person takes the second task out of Done before its days run out.
    expect((await srv.api("PATCH", `/tasks/${leaving}`, { state: "review" })).status).toBe(200);

    await vi.advanceTimersByTimeAsync(DAY + 60_000);
    await waitFor(async () => ((await taskOf(srv, kept)).archivedAt ? true : undefined), "the task archived");
    const job = await waitFor(async () => (await jobsOf(srv.api, kept)).find((j) => j.state === "succeeded"), "the archive job done");
    expect(job.trigger).toBe("archive");
    // LC-2: the uncommitted work was saved before the worktree went.
    expect(gitSync(repo.path, "show", `refs/grove/archived/${kept}/${slot.branchSlug || "default"}:b.txt`)).toContain("wip");
    expect((await runsOf(srv, kept)).map((r) => [r.action, r.cause, r.state])).toEqual([["archive", "archive_after_days", "succeeded"]]);

    // Days later: still one archive of the first task, none of the one that left.
    await vi.advanceTimersByTimeAsync(3 * DAY);
    await archiver(srv).check();
    expect(await jobsOf(srv.api, kept)).toHaveLength(1);
    expect((await runsOf(srv, kept)).filter((r) => r.action === "archive")).toHaveLength(1);
    expect(await taskOf(srv, leaving)).toMatchObject({ state: "review", archivedAt: null });
    expect(await runsOf(srv, leaving)).toEqual([]);
    expect(await jobsOf(srv.api, leaving)).toEqual([]);
  });

  // Two runners share one database only on PostgreSQL: declared there alone, never a skipped test on SQLite.
  if (kind === "postgres")
    it("WF-2.17 two runners on one database, both archivers due at once: one archive run, one archive job", async () => {
      const { databaseUrl } = await sharedDatabase(cleanups);
      const a = await inProcessRunner(cleanups, databaseUrl, "runner-a");
      const repo = await makeRepo({ name: "archive-two" });
      cleanups.push(() => repo.cleanup());
      const repositoryId = (await a.api("POST", "/repositories", { path: repo.path })).body.id as string;
      const b = await inProcessRunner(cleanups, databaseUrl, "runner-b");
      // A fraction of a day (about 2 s): both runners' archivers come due while the test waits.
      expect((await a.api("PUT", "/workflows/tidy", archiving(0.000025))).status).toBe(200);
      const ids: string[] = [];
      for (const title of ["one", "two", "three"]) {
        const id = (await a.api("POST", "/tasks", { title, repositories: [{ repositoryId }] })).body.id as string;
        expect((await a.api("PATCH", `/tasks/${id}`, { state: "done" })).status).toBe(200);
        ids.push(id);
      }
      // Runner b learns of the entries at its own check (the move was runner a's).
      void archiver(b).check();
      for (const id of ids) {
        await waitFor(async () => ((await taskOf(b, id)).archivedAt ? true : undefined), `task ${id} archived`, 60_000);
        await waitFor(async () => ((await runsOf(a, id)).every((r) => r.state === "succeeded") ? true : undefined), `task ${id}'s run ended`);
        await Promise.all([archiver(a).check(), archiver(b).check()]);
        expect((await runsOf(a, id)).map((r) => [r.action, r.state])).toEqual([["archive", "succeeded"]]);
        expect((await jobsOf(a.api, id)).map((j) => j.trigger)).toEqual(["archive"]);
      }
    });
});
