import { describe, expect, it } from "vitest";
import { crashServers } from "../fixture/crash.js";
import { DATABASES } from "../fixture/db.js";
import { makeRepo } from "../fixture/git.js";
import { waitFor } from "../fixture/server.js";

type Run = { action: string; cause: string; state: string; outcome: string | null };

/** Every second (6 fields, seconds first): the first tick comes right after the workflow is stored. */
const everySecond = (repositoryId: string) =>
  `repositoryId: ${repositoryId}\nsteps:\n  - id: todo\ntriggers:\n  schedule:\n    cron: "* * * * * *"\n    title: "Tick {{at}}"\n`;

/**
 * WF-2 with the real `grove serve`: the process dies (exit 137, like kill -9) right after a
 * schedule's task was created and before its run was marked done; the next server on the same
 * home and database finishes that run without creating the task again.
 */
describe.each(DATABASES)("WF-2 kill -9 in the middle of a schedule's task creation (%s)", { timeout: 240_000 }, (kind) => {
  const crash = crashServers(kind);

  it("WF-2 a crash at workflow.after_create → the restarted server ends the run, the tick has one task", async () => {
    const { start } = await crash.home();
    const repo = await makeRepo({ name: "sched-crash" });
    crash.cleanups.push(repo.cleanup);
    const first = await start("workflow.after_create:exit");
    const repositoryId = (await first.api("POST", "/repositories", { path: repo.path })).body.id as string;
    await first.api("PUT", "/workflows/ticker", everySecond(repositoryId)).catch(() => undefined);
    expect((await first.server.exited).code).toBe(137);

    const second = await start();
    const tasks = async () => (await second.api("GET", "/tasks")).body as { id: string; title: string }[];
    const crashed = await waitFor(async () => (await tasks()).sort((x, y) => x.title.localeCompare(y.title))[0], "the task created before the crash");
    const runs = await waitFor(async () => {
      const all = (await second.api("GET", `/tasks/${crashed.id}/workflow-runs`)).body as Run[];
      return all.every((r) => r.state === "succeeded") ? all : undefined;
    }, "the crashed run ended");
    expect(runs.map((r) => [r.action, r.cause, r.state, r.outcome])).toEqual([["create_task", "schedule", "succeeded", `created task ${crashed.id}`]]);
    expect((await second.api("PATCH", "/workflows/ticker", { stopped: true })).status).toBe(200);
    // Every tick (the crashed one included) has one task.
    const titles = (await tasks()).map((t) => t.title);
    expect(new Set(titles).size).toBe(titles.length);
  });
});
