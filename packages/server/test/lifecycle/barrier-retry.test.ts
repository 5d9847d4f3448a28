import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { newId } from "../../src/domain/ids.js";
import { DATABASES } from "../fixture/db.js";
import { gitSync } from "../fixture/git.js";
import { repoAndTask } from "../fixture/scenario.js";
import { serverPerTest } from "../fixture/server.js";
import { drivenCleanupWorker, envRows, jobsOf, runDueAt, taskWithSession, waitForJob } from "./helpers.js";

describe.each(DATABASES)("creation barrier and retries (%s)", (kind) => {
  const perTest = serverPerTest(kind);

  it("LC-2: with a job in prepared, POST /tasks/:id/sessions → 409 task_cleanup_in_progress and no rows", async () => {
    const srv = await perTest.start();
    const { task } = await repoAndTask(srv);
    const { store, runnerId, now } = srv.server.deps;
    const t = now();
    await store.reserveCleanupJob({
      job: {
        id: newId("job"),
        taskId: task.id,
        trigger: "archive",
        state: "prepared",
        runnerId,
        attempts: 0,
        maxAttempts: 6,
        lastError: null,
        discardChanges: false,
        snapshot: null,
        nextRunAt: null,
        createdAt: t,
        updatedAt: t,
      },
      refuseArchived: true,
      refuseRunningSessions: false,
    });
    expect((await jobsOf(srv.api, task.id))[0].state).toBe("prepared");
    const r = await srv.api("POST", `/tasks/${task.id}/sessions`, {});
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe("task_cleanup_in_progress");
    expect((await srv.api("GET", `/tasks/${task.id}/sessions`)).body).toEqual([]);
    expect((await srv.api("GET", `/tasks/${task.id}/environment`)).status).toBe(404);
    // A second lifecycle request is refused the same way.
    const again = await srv.api("POST", `/tasks/${task.id}/archive`);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("task_cleanup_in_progress");
  });

  it("LC-2: 50 interleaved archive / session-create races never end with a session whose worktree was removed", async () => {
    const srv = await perTest.start();
    const s = srv;
    const repo = (await repoAndTask(s)).repository;
    const race = async (i: number) => {
      const t = (await s.api("POST", "/tasks", { title: `race ${i}`, repositories: [{ repositoryId: repo.id }] })).body;
      // Alternate which request is sent first.
      const sessionP = i % 2 === 0 ? s.api("POST", `/tasks/${t.id}/sessions`, {}) : undefined;
      // ...and let the archive land at different points of the launch (reservation, worktree add, row, agent).
      const archiveP = new Promise((r) => setTimeout(r, (i % 7) * 15)).then(() => s.api("POST", `/tasks/${t.id}/archive`));
      // Every tenth race sends the session only after the archive answered, so the refusal path
      // is exercised on every run however the machine's load shifts the other interleavings.
      const sessionAfter = i % 10 === 9 ? archiveP.then(() => s.api("POST", `/tasks/${t.id}/sessions`, {})) : undefined;
      const [session, archive] = await Promise.all([sessionP ?? sessionAfter ?? s.api("POST", `/tasks/${t.id}/sessions`, {}), archiveP]);
      if (archive.status === 202) {
        const j = await waitForJob(s.api, t.id, archive.body.jobId, ["succeeded", "failed", "retry_wait"]);
        expect(j.lastError).toBeNull();
      }
      const task = (await s.api("GET", `/tasks/${t.id}`)).body;
      const rows = await envRows(s.api, t.id);
      // Invariant: every active row's worktree exists; an archived task has no active row and no live agent.
      for (const r of rows) if (r.status === "active") expect(existsSync(r.worktreePath)).toBe(true);
      if (task.archivedAt) {
        expect(rows.every((r) => r.status === "deleted")).toBe(true);
        if (session.status === 201) expect(s.server.deps.agents.get(session.body.id)).toBeUndefined();
      } else {
        expect([409]).toContain(archive.status);
      }
      if (session.status !== 201) expect(["task_cleanup_in_progress", "task_archived"]).toContain(session.body.error.code);
      return { session: session.status, archive: archive.status };
    };
    const outcomes: { session: number; archive: number }[] = [];
    for (let i = 0; i < 50; i += 5) outcomes.push(...(await Promise.all([0, 1, 2, 3, 4].map((k) => race(i + k)))));
    expect(outcomes).toHaveLength(50);
    // Both orders happened at least once: otherwise the test raced nothing.
    expect(outcomes.some((o) => o.session === 201)).toBe(true);
    expect(outcomes.some((o) => o.session === 409)).toBe(true);
    // 50 task launches and archives with real git: about 20 s alone, over a minute when another
    // test run shares the two cores. The assertions are about outcomes, never durations.
  }, 240_000);

  it("LC-4: a locked worktree makes the job retry_wait with its error and attempt count; it succeeds once the lock is gone", async () => {
    const srv = await perTest.start();
    const worker = await drivenCleanupWorker(srv);
    const { task, slot, repo } = await taskWithSession(srv);
    gitSync(repo.path, "worktree", "lock", "--reason", "on a usb disk", slot.worktreePath);
    const r = await srv.api("POST", `/tasks/${task.id}/archive`);
    const job = await waitForJob(srv.api, task.id, r.body.jobId, ["retry_wait", "succeeded", "failed"]);
    expect(job.state).toBe("retry_wait");
    expect(job.attempts).toBe(1);
    expect(job.lastError).toMatch(/unlock first/);
    expect(Date.parse(job.nextRunAt) - Date.parse(job.updatedAt)).toBeGreaterThanOrEqual(55_000);
    expect(existsSync(slot.worktreePath)).toBe(true);
    gitSync(repo.path, "worktree", "unlock", slot.worktreePath);
    // Not due yet at the real clock; then due.
    expect(await runDueAt(worker, Date.parse(job.nextRunAt) + 1)).toBe(1);
    const done = (await jobsOf(srv.api, task.id))[0];
    expect(done).toMatchObject({ state: "succeeded", attempts: 2 });
    expect(existsSync(slot.worktreePath)).toBe(false);
    expect((await envRows(srv.api, task.id))[0].status).toBe("deleted");
  });

  it("LC-4: after the last attempt the job is failed and keeps its error; the worktree stays", async () => {
    const srv = await perTest.start();
    const worker = await drivenCleanupWorker(srv);
    const { task, slot, repo } = await taskWithSession(srv, "say hi");
    gitSync(repo.path, "worktree", "lock", slot.worktreePath);
    const r = await srv.api("POST", `/tasks/${task.id}/archive`);
    let job = await waitForJob(srv.api, task.id, r.body.jobId, ["retry_wait"]);
    const delays: number[] = [];
    let t = Date.now();
    while (job.state === "retry_wait") {
      delays.push(Date.parse(job.nextRunAt) - t);
      t = Date.parse(job.nextRunAt) + 1;
      expect(await runDueAt(worker, t)).toBe(1);
      job = (await jobsOf(srv.api, task.id))[0];
    }
    expect(job.state).toBe("failed");
    expect(job.attempts).toBe(6);
    expect(job.lastError).toMatch(/unlock first/);
    expect(job.nextRunAt).toBeNull();
    // 1m, 5m, 15m, 1h, 4h (the first measured from the real clock, so roughly).
    expect(delays.slice(1).map((d) => Math.round(d / 60_000))).toEqual([5, 15, 60, 240]);
    expect(existsSync(slot.worktreePath)).toBe(true);
    expect((await envRows(srv.api, task.id))[0].status).toBe("active");
    // A failed job no longer holds the barrier closed... but the task is archived.
    expect((await srv.api("POST", `/tasks/${task.id}/sessions`, {})).body.error.code).toBe("task_archived");
  });
});
