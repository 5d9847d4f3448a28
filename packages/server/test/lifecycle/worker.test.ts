import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { Store } from "../../src/store/store.js";
import { DATABASES } from "../fixture/db.js";
import { gitSync } from "../fixture/git.js";
import { waitFor, type TestServer, serverPerTest } from "../fixture/server.js";
import { drivenCleanupWorker, jobsOf, runDueAt, taskWithSession, waitForJob } from "./helpers.js";

/**
 * The real store, except that `method` throws on its next `times` calls: the injected stand-in
 * for a database error while the worker records an attempt (everything else is real).
 */
function failNext(srv: TestServer, method: keyof Store, times: number): { failures: () => number; stop: () => void } {
  const deps = srv.server.deps as { store: Store };
  const real = deps.store;
  let left = times;
  let failed = 0;
  deps.store = new Proxy(real, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target) as unknown;
      if (typeof value !== "function") return value;
      if (prop === method) {
        return (...args: unknown[]) => {
          if (left > 0) {
            left -= 1;
            failed += 1;
            return Promise.reject(new Error("injected: the database went away"));
          }
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      }
      return (value as (...a: unknown[]) => unknown).bind(target);
    },
  });
  return { failures: () => failed, stop: () => (left = 0) };
}

/** LC-4: a failure to record an attempt never strands a job in `running` while the server runs. */
describe.each(DATABASES)("cleanup worker bookkeeping failures (%s)", (kind) => {
  const perTest = serverPerTest(kind);

  it("LC-4: when recording an attempt's outcome fails once, the job becomes due again (retry_wait with the error) and then succeeds", async () => {
    const srv = await perTest.start();
    const worker = await drivenCleanupWorker(srv);
    const { task, slot } = await taskWithSession(srv, "say hi");
    const inject = failNext(srv, "finishCleanupAttempt", 1);
    const r = await srv.api("POST", `/tasks/${task.id}/archive`);
    expect(r.status).toBe(202);
    const job = await waitForJob(srv.api, task.id, r.body.jobId, ["retry_wait", "succeeded", "failed"], 10_000);
    expect(inject.failures()).toBe(1);
    expect(job).toMatchObject({ state: "retry_wait", attempts: 1 });
    expect(job.lastError).toMatch(/could not be recorded.*database went away/);
    expect(Date.parse(job.nextRunAt)).toBeGreaterThan(Date.parse(job.updatedAt));
    // The worker is still alive: nothing runs before its time; once due, the idempotent attempt
    // runs again and is recorded.
    expect(await runDueAt(worker, Date.parse(job.nextRunAt) + 1)).toBe(1);
    expect((await jobsOf(srv.api, task.id))[0]).toMatchObject({ state: "succeeded", attempts: 2 });
    expect(existsSync(slot.worktreePath)).toBe(false);
  });

  it("LC-4: when even the requeue fails, the next worker run requeues the stranded job and it completes", async () => {
    const srv = await perTest.start();
    const worker = await drivenCleanupWorker(srv);
    const { task, slot } = await taskWithSession(srv, "say hi");
    const inject = failNext(srv, "finishCleanupAttempt", 2);
    const r = await srv.api("POST", `/tasks/${task.id}/archive`);
    expect(r.status).toBe(202);
    await waitFor(async () => inject.failures() === 2 || undefined, "two injected failures", 10_000);
    // The worker's run must settle (not hang, not reject) with the job still `running` in the DB.
    await expect(worker.runDue()).resolves.toBeGreaterThanOrEqual(0);
    const job = await waitForJob(srv.api, task.id, r.body.jobId, ["retry_wait", "succeeded", "failed"], 10_000);
    expect(job).toMatchObject({ state: "retry_wait", attempts: 1 });
    expect(await runDueAt(worker, Date.parse(job.nextRunAt) + 1)).toBe(1);
    expect((await jobsOf(srv.api, task.id))[0]).toMatchObject({ state: "succeeded", attempts: 2 });
    expect(existsSync(slot.worktreePath)).toBe(false);
  });

  it("LC-4: while the timer lookup keeps failing, the worker still retries on its own and runs the due job", async () => {
    const srv = await perTest.start();
    const worker = srv.server.orchestrator.cleanup;
    worker.retryDelayMs = 100;
    let offset = 10 * 60_000;
    worker.clock = () => Date.now() + offset;
    const { task, slot, repo } = await taskWithSession(srv, "say hi");
    gitSync(repo.path, "worktree", "lock", slot.worktreePath);
    const inject = failNext(srv, "nextCleanupDueAt", Number.POSITIVE_INFINITY);
    const r = await srv.api("POST", `/tasks/${task.id}/archive`);
    expect(r.status).toBe(202);
    const first = await waitForJob(srv.api, task.id, r.body.jobId, ["retry_wait", "succeeded", "failed"], 10_000);
    expect(first).toMatchObject({ state: "retry_wait", attempts: 1 });
    await waitFor(() => inject.failures() > 0 || undefined, "a failed timer lookup", 10_000);
    // The cause is gone and the job is due; nothing kicks the worker: only its own retry can.
    gitSync(repo.path, "worktree", "unlock", slot.worktreePath);
    offset = 2 * 60 * 60_000;
    const done = await waitForJob(srv.api, task.id, r.body.jobId, ["succeeded", "failed"], 10_000);
    inject.stop();
    expect(done).toMatchObject({ state: "succeeded", attempts: 2 });
    expect(existsSync(slot.worktreePath)).toBe(false);
  });
});
