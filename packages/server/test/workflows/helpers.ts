import { rm } from "node:fs/promises";
import { tempDir } from "../fixture/git.js";
import type { TestServer } from "../fixture/server.js";
import { startGitHttpServer } from "../remote/harness/git-http-server.js";
import { makeRemoteRepo, uniqueToken } from "../remote/helpers.js";
import { startFakeProvider, type FakeProvider } from "../review/fake-provider.js";
import { waitFor } from "../fixture/server.js";
import { pendingRunRecord, type WorkflowRunRecord } from "../../src/domain/workflow-run.js";
import type { NewRun } from "../../src/orchestrator/workflows/workflow-run-queue.js";

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
  return waitFor(
    async () => {
      const all = await runsOf(srv, taskId);
      return all.find((r) => pred(r, all));
    },
    what,
    timeoutMs,
  );
}

/** Stores a workflow from YAML; throws unless it was accepted. */
export async function applyWorkflow(srv: TestServer, name: string, yaml: string): Promise<{ version: number }> {
  const r = await srv.api("PUT", `/workflows/${name}`, yaml);
  if (r.status !== 200) throw new Error(`workflow: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

/**
 * A git server with one repository (`acme/widget`) and the fake GitHub REST API in front of it,
 * for tests that run `grove serve` as a child process; removed by the cleanups.
 */
export async function fakeGithubRemote(cleanups: (() => Promise<unknown>)[]): Promise<{ web: string; token: string; fake: FakeProvider }> {
  const root = await tempDir("grove-remote-");
  const token = uniqueToken();
  const http = await startGitHttpServer({ root, kind: "github", token });
  makeRemoteRepo(root, "acme/widget", { "README.md": "# widget\n" });
  const fake = await startFakeProvider("github", token, `${http.url}/acme/widget`);
  cleanups.push(async () => {
    await fake.close();
    await http.close();
    await rm(root, { recursive: true, force: true });
  });
  return { web: `${http.url}/acme/widget`, token, fake };
}

/**
 * A crash test's restarted server: the task's workflow runs once none is pending or running any
 * more (what the restart's recovery finished), as the API lists them.
 */
export async function settledRuns<R extends { state: string }>(
  api: (method: string, path: string) => Promise<{ body: unknown }>,
  taskId: string,
  what: string,
): Promise<R[]> {
  return waitFor(
    async () => {
      const all = (await api("GET", `/tasks/${taskId}/workflow-runs`)).body as R[];
      return all.length > 0 && all.every((r) => r.state !== "pending" && r.state !== "running") ? all : undefined;
    },
    what,
    120_000,
  );
}

/** A pending run record as the engine inserts it (store and gate tests): `over` sets what the test is about. */
export function pendingRun(over: Partial<NewRun> & Pick<NewRun, "idemKey" | "action"> & { id: string }): WorkflowRunRecord {
  const { id, ...r } = over;
  const base = { taskId: "tsk_1", entryId: null, workflow: "w", version: 1, step: "todo", actionIndex: 0, cause: "enter" };
  return pendingRunRecord({ ...base, ...r }, id, "2026-12-01T00:00:00.000Z");
}
