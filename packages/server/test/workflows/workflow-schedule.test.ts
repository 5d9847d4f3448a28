import { afterEach, describe, expect, it, vi } from "vitest";
import { dueTick, tickFields } from "../../src/domain/workflow-schedule.js";
import { inProcessRunner, sharedDatabase, type Cleanups } from "../cluster/helpers.js";
import { DATABASES } from "../fixture/db.js";
import { makeRepo } from "../fixture/git.js";
import { serverPerFile, startTestServer, waitFor, type TestServer } from "../fixture/server.js";
import { runsOf } from "./helpers.js";

/** Every minute, read in India's zone (UTC+05:30), so the title's local time is not the UTC one. */
const scheduled = (repositoryId: string) =>
  `repositoryId: ${repositoryId}\nsteps:\n  - id: todo\ntriggers:\n  schedule:\n    cron: "* * * * *"\n    timeZone: Asia/Kolkata\n    title: "Standup {{date}} {{time}}"\n    brief: "tick {{at}}"\n`;

/** The fake clock starts half a minute before the first tick. */
const START = Date.parse("2026-06-01T10:00:30.000Z");
const tickAt = (k: number) => Date.parse("2026-06-01T10:00:00.000Z") + k * 60_000;
const titleOf = (k: number) => `Standup ${tickFields(new Date(tickAt(k)), "Asia/Kolkata").date} ${tickFields(new Date(tickAt(k)), "Asia/Kolkata").time}`;

type Task = { id: string; title: string; description: string; state: string };
const tasks = async (srv: TestServer) => ((await srv.api("GET", "/tasks")).body as Task[]).sort((a, b) => a.title.localeCompare(b.title));
const schedules = (srv: TestServer) => srv.server.orchestrator.workflows.engine.schedules;

/** Waits until every server's schedule check is armed for tick `k`, then moves the fake clock just past it. */
async function advanceTo(servers: TestServer[], k: number): Promise<void> {
  const at = new Date(tickAt(k)).toISOString();
  await waitFor(() => servers.every((s) => schedules(s).nextCheckAt() === at) || undefined, `every schedule armed for ${at}`, 60_000);
  await vi.advanceTimersByTimeAsync(Math.max(0, tickAt(k) - Date.now()) + 5);
}

/** The server's clock is vitest's: every timer it sets and `Date` follow real time, and jump when the test moves them. */
function fakeClock(): void {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"], shouldAdvanceTime: true });
  vi.setSystemTime(START);
}

describe("WF-2 schedule ticks (pure)", () => {
  it("WF-2 the due tick is the newest at or before now and after the workflow's change; missed ticks collapse into one", () => {
    const s = { cron: "0 9 * * *", timeZone: "Europe/Berlin" };
    // 09:00 in Berlin is 07:00Z in summer time, 08:00Z in winter (the zone's own rules).
    expect(dueTick(s, Date.parse("2026-07-01T00:00:00Z"), Date.parse("2026-07-01T07:00:00Z"))?.toISOString()).toBe("2026-07-01T07:00:00.000Z");
    expect(dueTick(s, Date.parse("2026-12-01T00:00:00Z"), Date.parse("2026-12-01T08:00:00Z"))?.toISOString()).toBe("2026-12-01T08:00:00.000Z");
    expect(dueTick(s, Date.parse("2026-12-01T00:00:00Z"), Date.parse("2026-12-01T07:59:59Z"))).toBeUndefined();
    // Down for three days: one tick, the newest.
    expect(dueTick(s, Date.parse("2026-12-01T00:00:00Z"), Date.parse("2026-12-04T12:00:00Z"))?.toISOString()).toBe("2026-12-04T08:00:00.000Z");
    // A tick before the workflow was stored never fires.
    expect(dueTick(s, Date.parse("2026-12-01T08:30:00Z"), Date.parse("2026-12-01T09:00:00Z"))).toBeUndefined();
    expect(tickFields(new Date("2026-12-01T08:00:00Z"), "Europe/Berlin")).toEqual({ date: "2026-12-01", time: "09:00", at: "2026-12-01T08:00:00.000Z" });
  });
});

describe.each(DATABASES)("WF-2 schedules (%s)", { timeout: 240_000 }, (kind) => {
  const perFile = serverPerFile(kind);
  const cleanups: Cleanups = [];
  afterEach(async () => {
    vi.useRealTimers();
    for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
  });

  it("WF-1 a bad schedule is 400 invalid_workflow with its line (cron, time zone, template field, repository, step), nothing stored", async () => {
    const srv = await perFile.start();
    const repo = perFile.track(await makeRepo({ name: "sched-bad" }));
    const repositoryId = (await srv.api("POST", "/repositories", { path: repo.path })).body.id as string;
    const head = `repositoryId: ${repositoryId}\nsteps:\n  - id: todo\ntriggers:\n  schedule:\n`;
    const bad: { what: string; yaml: string; line: number; message: RegExp }[] = [
      { what: "bad cron", yaml: `${head}    cron: "61 * * * *"\n    title: t\n`, line: 6, message: /invalid cron expression "61 \* \* \* \*"/ },
      { what: "cron of 3 fields", yaml: `${head}    title: t\n    cron: "* * *"\n`, line: 7, message: /5 fields/ },
      {
        what: "unknown time zone",
        yaml: `${head}    cron: "0 9 * * *"\n    timeZone: Mars/Olympus\n    title: t\n`,
        line: 7,
        message: /unknown time zone "Mars\/Olympus"/,
      },
      {
        what: "unknown template field",
        yaml: `${head}    cron: "0 9 * * *"\n    title: t\n    brief: "{{title}}"\n`,
        line: 8,
        message: /unknown template field \{\{title\}\} \(known: date, time, at\)/,
      },
      { what: "unknown step", yaml: `${head}    cron: "0 9 * * *"\n    title: t\n    step: later\n`, line: 8, message: /unknown step "later"/ },
      {
        what: "unknown repository",
        yaml: `steps:\n  - id: todo\ntriggers:\n  schedule:\n    cron: "0 9 * * *"\n    title: t\n    repositoryId: repo_nope\n`,
        line: 7,
        message: /repository repo_nope not found/,
      },
      {
        what: "global without a repository",
        yaml: `steps:\n  - id: todo\ntriggers:\n  schedule:\n    cron: "0 9 * * *"\n    title: t\n`,
        line: 4,
        message: /names the repository/,
      },
      { what: "unknown field", yaml: `${head}    cron: "0 9 * * *"\n    title: t\n    every: day\n`, line: 8, message: /unknown field/ },
    ];
    for (const b of bad) {
      const r = await srv.api("PUT", "/workflows/sched-bad", b.yaml);
      expect(r.status, b.what).toBe(400);
      expect(r.body.error.code, b.what).toBe("invalid_workflow");
      expect(r.body.error.details.line, `${b.what}: ${r.body.error.message}`).toBe(b.line);
      expect(r.body.error.message, b.what).toMatch(b.message);
    }
    expect((await srv.api("GET", "/workflows/sched-bad")).status).toBe(404);
  });

  it("WF-2 N ticks → N tasks from the template; a restart creates no duplicate; ticks missed while down → one catch-up, the newest", async () => {
    fakeClock();
    const first = await startTestServer(kind);
    cleanups.push(() => first.close());
    const repo = await makeRepo({ name: "sched" });
    cleanups.push(() => repo.cleanup());
    const repositoryId = (await first.api("POST", "/repositories", { path: repo.path })).body.id as string;
    expect((await first.api("PUT", "/workflows/standup", scheduled(repositoryId))).status).toBe(200);

    for (let k = 1; k <= 3; k++) {
      await advanceTo([first], k);
      await waitFor(async () => ((await tasks(first)).length === k ? true : undefined), `${k} scheduled tasks`);
    }
    const made = await tasks(first);
    expect(made.map((t) => [t.title, t.description, t.state])).toEqual([1, 2, 3].map((k) => [titleOf(k), `tick ${new Date(tickAt(k)).toISOString()}`, "todo"]));
    expect(titleOf(1)).toBe("Standup 2026-06-01 15:31");
    for (const t of made) expect((await runsOf(first, t.id)).map((r) => [r.action, r.cause, r.state])).toEqual([["create_task", "schedule", "succeeded"]]);

    // A restart at the same instant: the newest tick's key is taken, nothing new.
    await first.stop();
    let srv = await startTestServer(kind, { home: first.home, databaseUrl: first.databaseUrl });
    await waitFor(() => schedules(srv).nextCheckAt() === new Date(tickAt(4)).toISOString() || undefined, "the restarted server checked", 60_000);
    expect((await tasks(srv)).map((t) => t.title)).toEqual([1, 2, 3].map(titleOf));

    // Down over ticks 4, 5 and 6: the restart catches up once, with tick 6.
    await srv.stop();
    vi.setSystemTime(tickAt(6) + 30_000);
    srv = await startTestServer(kind, { home: first.home, databaseUrl: first.databaseUrl });
    cleanups.push(() => srv.stop());
    await waitFor(async () => ((await tasks(srv)).length >= 4 ? true : undefined), "the catch-up task");
    await waitFor(() => schedules(srv).nextCheckAt() === new Date(tickAt(7)).toISOString() || undefined, "armed for tick 7", 60_000);
    expect((await tasks(srv)).map((t) => t.title)).toEqual([1, 2, 3, 6].map(titleOf));
    await advanceTo([srv], 7);
    await waitFor(async () => ((await tasks(srv)).length === 5 ? true : undefined), "tick 7's task");
    expect((await tasks(srv)).map((t) => t.title)).toEqual([1, 2, 3, 6, 7].map(titleOf));
  });

  // Two runners share one database only on PostgreSQL: declared there alone, never a skipped test on SQLite.
  if (kind === "postgres")
    it("WF-2 two runners on one database: each tick creates one task", async () => {
      fakeClock();
      const { databaseUrl } = await sharedDatabase(cleanups);
      // Heartbeats far apart: the fake minutes the test jumps never make a runner look offline.
      const env = { GROVE_RUNNER_HEARTBEAT_MS: "600000" };
      const a = await inProcessRunner(cleanups, databaseUrl, "runner-a", env);
      const repo = await makeRepo({ name: "sched-two" });
      cleanups.push(() => repo.cleanup());
      const repositoryId = (await a.api("POST", "/repositories", { path: repo.path })).body.id as string;
      expect((await a.api("PUT", "/workflows/standup", scheduled(repositoryId))).status).toBe(200);
      const b = await inProcessRunner(cleanups, databaseUrl, "runner-b", env);
      for (let k = 1; k <= 3; k++) {
        await advanceTo([a, b], k);
        await waitFor(async () => ((await tasks(a)).length >= k ? true : undefined), `tick ${k}'s task`);
      }
      // Both runners checked tick 4's arming: every tick before it was decided on both.
      await waitFor(() => [a, b].every((s) => schedules(s).nextCheckAt() === new Date(tickAt(4)).toISOString()) || undefined, "both armed for tick 4", 60_000);
      expect((await tasks(b)).map((t) => t.title)).toEqual([1, 2, 3].map(titleOf));
    });
});
