import type { TestServer } from "../fixture/server.js";
import { waitFor } from "../fixture/server.js";

export type Run = { id: string; step: string; action: string; cause: string; state: string; outcome: string | null; sessionId: string | null };

/** The task's workflow runs, oldest first. */
export async function runsOf(srv: TestServer, taskId: string): Promise<Run[]> {
  const r = await srv.api("GET", `/tasks/${taskId}/workflow-runs`);
  if (r.status !== 200) throw new Error(`runs: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body as Run[];
}

/** Waits until the task is in `state`. */
export async function waitForTaskState(srv: TestServer, taskId: string, state: string, timeoutMs = 20_000): Promise<void> {
  await waitFor(async () => (await srv.api("GET", `/tasks/${taskId}`)).body.state === state || undefined, `task ${taskId} in ${state}`, timeoutMs);
}

/** Waits for a run matching `pred` and returns it. */
export async function waitForRun(srv: TestServer, taskId: string, what: string, pred: (r: Run, all: Run[]) => boolean, timeoutMs = 20_000): Promise<Run> {
  return waitFor(async () => {
    const all = await runsOf(srv, taskId);
    return all.find((r) => pred(r, all));
  }, what, timeoutMs);
}

/** Stores a workflow from YAML; throws unless it was accepted. */
export async function applyWorkflow(srv: TestServer, name: string, yaml: string): Promise<{ version: number }> {
  const r = await srv.api("PUT", `/workflows/${name}`, yaml);
  if (r.status !== 200) throw new Error(`workflow: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}
