import { existsSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentHandle, StartAgentInput } from "../../src/agents/runtime.js";
import { processesWithCwd } from "../agents/fixture.js";
import { makeRepo } from "../fixture/git.js";
import { startTestServer, waitForSession, type TestServer } from "../fixture/server.js";

describe("SES-5.9 a server that stops while a session's launch is on its way", () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
  });

  it("SES-5.9 LIVE-1: the launch reaches the agent runtime after close() resolved → no agent process, no ACP log; after a restart the session is not shown as starting or running", async () => {
    const repo = await makeRepo();
    cleanups.push(repo.cleanup);
    let srv: TestServer = await startTestServer("sqlite");
    cleanups.push(() => srv.close());
    const r = await srv.api("POST", "/repositories", { path: repo.path });
    const t = await srv.api("POST", "/tasks", { title: "Stops mid-launch", repositories: [{ repositoryId: r.body.id }] });

    // Hold the launch at the runtime's door: the worktree exists, the agent is not started yet.
    const runtime = srv.server.deps.agents;
    const realStart = runtime.start.bind(runtime);
    let reached!: (input: StartAgentInput) => void;
    const atStart = new Promise<StartAgentInput>((res) => (reached = res));
    let letGo!: () => void;
    const gate = new Promise<void>((res) => (letGo = res));
    let started: Promise<AgentHandle | unknown> | undefined;
    runtime.start = async (input) => {
      reached(input);
      await gate;
      const p = realStart(input);
      started = p.catch((e: unknown) => e);
      return p;
    };

    const launch = srv.api("POST", `/tasks/${t.body.id}/sessions`, {}).catch((e: unknown) => e);
    const input = await atStart;
    await srv.stop();
    letGo();
    await launch;
    const outcome = await started;
    if (outcome && typeof outcome === "object" && "stop" in outcome) await (outcome as AgentHandle).stop({ graceMs: 500 });

    expect(outcome).toMatchObject({ code: "agent_start_failed", details: { reason: "server_stopping" } });
    expect(runtime.liveCount()).toBe(0);
    expect(processesWithCwd((d) => d.startsWith(`${srv.home}/`))).toEqual([]);
    expect(existsSync(input.logFile)).toBe(false);

    // The restart tells the truth about the launch the stop cut short.
    srv = await startTestServer("sqlite", { home: srv.home, databaseUrl: srv.databaseUrl });
    const session = await waitForSession(srv.api, input.sessionId, ["failed", "waiting_for_input", "completed", "cancelled"]);
    expect(["starting", "running"]).not.toContain(session.state);
  });
});
