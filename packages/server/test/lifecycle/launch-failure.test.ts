import { describe, expect, it } from "vitest";
import { processesWithCwd } from "../agents/fixture.js";
import { repoAndTask } from "../fixture/scenario.js";
import { serverPerFile, waitForSession, type TestServer } from "../fixture/server.js";

/**
 * SES-5.5: a launch that fails after its agent process is up (here: recording the agent's pid
 * fails once, as a database that refuses one write would) leaves no process behind: the session
 * fails with the error and the agent is stopped by the launch itself, not by a later cleanup.
 */
describe("SES-5.5 a launch that fails after its agent started", () => {
  // Each test makes its own repository and task: one server serves both.
  const perFile = serverPerFile("sqlite");

  /** The next record of an agent's pid fails once, after the process started. */
  function failNextPidRecord(srv: TestServer): void {
    const store = srv.server.deps.store;
    const real = store.upsertAgentProcess.bind(store);
    store.upsertAgentProcess = async (row) => {
      store.upsertAgentProcess = real;
      throw new Error(`refused to record agent pid ${row.pid}`);
    };
  }

  /** The agent processes of this server whose cwd is under the task's worktrees. */
  const agentsIn = (path: string) => processesWithCwd((d) => d === path || d.startsWith(`${path}/`));

  it("SES-5.5: a new session → failed with the error, no agent process, none in the runtime", async () => {
    const srv = await perFile.start();
    const { task } = await repoAndTask(srv, { title: "Fails after start" });
    failNextPidRecord(srv);
    const r = await srv.api("POST", `/tasks/${task.id}/sessions`, { prompt: "say hi" });
    expect(r.status).toBe(201);
    const failed = await waitForSession(srv.api, r.body.id, ["failed", "waiting_for_input"]);
    expect(failed.state).toBe("failed");
    expect(failed.lastError.message).toContain("refused to record agent pid");
    const ws = (await srv.api("GET", `/sessions/${r.body.id}/workspace`)).body;
    expect(srv.server.deps.agents.get(r.body.id)).toBeUndefined();
    expect(agentsIn(ws.repositories[0].worktreePath)).toEqual([]);
  });

  it("SES-5.5: a prompt whose agent must start again → failed with the error, no agent process", async () => {
    const srv = await perFile.start();
    const { task } = await repoAndTask(srv, { title: "Fails on the next start" });
    const s = await srv.api("POST", `/tasks/${task.id}/sessions`, { prompt: "say hi" });
    await waitForSession(srv.api, s.body.id, ["waiting_for_input"]);
    const ws = (await srv.api("GET", `/sessions/${s.body.id}/workspace`)).body;
    await srv.server.deps.agents.stop(s.body.id);
    failNextPidRecord(srv);
    expect((await srv.api("POST", `/sessions/${s.body.id}/prompt`, { prompt: "say again" })).status).toBe(202);
    const failed = await waitForSession(srv.api, s.body.id, ["failed"]);
    expect(failed.lastError.message).toContain("refused to record agent pid");
    expect(srv.server.deps.agents.get(s.body.id)).toBeUndefined();
    expect(agentsIn(ws.repositories[0].worktreePath)).toEqual([]);
  });
});
