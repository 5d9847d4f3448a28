import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { WorkflowRunRecord } from "../../src/domain/workflow-run.js";
import { claimableHere } from "../../src/orchestrator/workflows/workflow-run-gates.js";
import { startTestServer } from "../fixture/server.js";
import { fakeGithubRemote, pendingRun } from "./helpers.js";
import { cleanupsAfterEach } from "../fixture/cleanups.js";

/**
 * RUN-18 for workflow runs: an issue comment or close opens the repository's stored credential,
 * sealed with the key of the runner that registered it. Another runner on the same database
 * with another key must leave the run pending (its claim would fail it: credential_unreadable).
 */
describe("WF-2 RUN-18 issue actions are claimed only where the credential's key is", () => {
  const cleanups = cleanupsAfterEach();

  it("RUN-18 WF-2: a runner without the sealing key may not claim issue_comment or issue_close; the one with it may", async () => {
    const srv = await startTestServer("sqlite");
    cleanups.push(() => srv.close());
    const p = await fakeGithubRemote(cleanups);
    const repo = await srv.api("POST", "/repositories", { url: p.web, provider: "github", credential: { token: p.token }, apiUrl: p.fake.apiUrl });
    expect(repo.status, JSON.stringify(repo.body)).toBe(201);
    const otherHome = await mkdtemp(join(tmpdir(), "grove-other-runner-"));
    cleanups.push(() => rm(otherHome, { recursive: true, force: true }));
    const here = srv.server.deps;
    const other = { ...here, home: otherHome, runnerId: "runner-other" };
    const queue = { publish: () => undefined };
    const run = (action: WorkflowRunRecord["action"]) => pendingRun({ id: "wfr_gate", idemKey: "gate", taskId: "task_gate", cause: "issue", action });
    const comment = run({ action: "issue_comment", repositoryId: repo.body.id, number: 7, body: "Grove task" });
    const close = run({ action: "issue_close", repositoryId: repo.body.id, number: 7 });
    expect(await claimableHere(here, queue, comment)).toBe(true);
    expect(await claimableHere(here, queue, close)).toBe(true);
    expect(await claimableHere(other, queue, comment)).toBe(false);
    expect(await claimableHere(other, queue, close)).toBe(false);
  });
});
