import { expect } from "vitest";
import { isAlive } from "../../src/agents/process-info.js";
import { repoAndTask } from "../fixture/scenario.js";
import { waitFor, waitForSession, type TestServer, type apiClient } from "../fixture/server.js";

type Api = ReturnType<typeof apiClient>;

/**
 * The server's cleanup worker, for a test that drives it by hand (its `clock`, `runDue`). The
 * server starts its worker only after the start-up recovery that follows listening, in the
 * background; on a loaded machine that start can come in the middle of a test, and its run,
 * reading the clock the test has just moved, takes the job the test's own `runDue` was to run.
 * Resolves once that start and its run are over.
 */
export async function drivenCleanupWorker(srv: TestServer): Promise<TestServer["server"]["orchestrator"]["cleanup"]> {
  await srv.server.orchestrator.afterListening();
  const worker = srv.server.orchestrator.cleanup;
  await worker.runDue();
  return worker;
}

/**
 * Runs the jobs due at `at` on a worker driven by hand; resolves with how many attempts ran.
 * The run an archive kicked goes on looking for due jobs after it recorded a `retry_wait` the
 * test may already have read: moving the clock before that run ends would let it take the job
 * the test's own run was to take. Runs are serialized, so a run at the unmoved clock first waits
 * for it, and checks that nothing runs before its time.
 */
export async function runDueAt(worker: Awaited<ReturnType<typeof drivenCleanupWorker>>, at: number): Promise<number> {
  expect(await worker.runDue()).toBe(0);
  worker.clock = () => at;
  return worker.runDue();
}

/** The task's cleanup jobs (GET /cleanup-jobs?taskId=). */
export async function jobsOf(api: Api, taskId: string): Promise<any[]> {
  const r = await api("GET", `/cleanup-jobs?taskId=${encodeURIComponent(taskId)}`);
  expect(r.status).toBe(200);
  return r.body;
}

/** Waits until the job reaches one of `states`; returns it. */
export async function waitForJob(api: Api, taskId: string, jobId: string, states: string[], timeoutMs = 30_000): Promise<any> {
  return waitFor(
    async () => {
      const job = (await jobsOf(api, taskId)).find((j) => j.id === jobId);
      return job && states.includes(job.state) ? job : undefined;
    },
    `job ${jobId} in ${states.join("|")}`,
    timeoutMs,
  );
}

/** A task with one session that ran `prompt` and now waits for input; returns its slot and agent pid. */
export async function taskWithSession(srv: TestServer, prompt = "write work.txt v1\ncommit first\nwrite wip.txt uncommitted") {
  const ctx = await repoAndTask(srv);
  const res = await srv.api("POST", `/tasks/${ctx.task.id}/sessions`, { prompt });
  expect(res.status).toBe(201);
  await waitForSession(srv.api, res.body.id, ["waiting_for_input"]);
  const ws = (await srv.api("GET", `/sessions/${res.body.id}/workspace`)).body;
  const pid = srv.server.deps.agents.get(res.body.id)?.pid;
  return { ...ctx, session: res.body, ws, slot: ws.repositories[0], pid };
}

/** The environment's rows as the API shows them (tombstones included). */
export async function envRows(api: Api, taskId: string): Promise<any[]> {
  const r = await api("GET", `/tasks/${taskId}/environment`);
  return r.status === 200 ? r.body.repositories : [];
}

export function processGone(pid: number | undefined): boolean {
  return pid === undefined || !isAlive(pid);
}
