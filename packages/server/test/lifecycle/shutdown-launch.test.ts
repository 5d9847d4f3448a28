import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { AgentHandle, StartAgentInput } from "../../src/agents/runtime.js";
import { processesWithCwd } from "../agents/fixture.js";
import { makeRepo } from "../fixture/git.js";
import { startTestServer, waitForSession, type TestServer } from "../fixture/server.js";
import { cleanupsAfterEach } from "../fixture/cleanups.js";

/**
 * Holds every agent start of `srv` at the runtime's door until `letGo`: `atStart` resolves with
 * the first one's input, `started()` with what the real start gave (its handle, or its error).
 */
function holdStarts(srv: TestServer) {
  const runtime = srv.server.deps.agents;
  const realStart = runtime.start.bind(runtime);
  let reached!: (input: StartAgentInput) => void;
  const atStart = new Promise<StartAgentInput>((res) => (reached = res));
  let letGo!: () => void;
  const gate = new Promise<void>((res) => (letGo = res));
  let result: Promise<AgentHandle | unknown> | undefined;
  runtime.start = async (input) => {
    reached(input);
    await gate;
    const p = realStart(input);
    result = p.catch((e: unknown) => e);
    return p;
  };
  return { atStart, letGo, started: () => result };
}

describe("SES-5.9 a server that stops while a session's launch is on its way", () => {
  const cleanups = cleanupsAfterEach();

  /** A server (SQLite) with one task on a fresh repository; the caller closes the server. */
  async function serverWithTask(): Promise<{ srv: TestServer; taskId: string }> {
    const repo = await makeRepo();
    cleanups.push(repo.cleanup);
    const srv = await startTestServer("sqlite");
    const r = await srv.api("POST", "/repositories", { path: repo.path });
    const t = await srv.api("POST", "/tasks", { title: "Stops mid-launch", repositories: [{ repositoryId: r.body.id }] });
    expect(t.status).toBe(201);
    return { srv, taskId: t.body.id as string };
  }

  it("SES-5.9 LIVE-1: a launch on its way when the server stops is waited for: it reaches the closed runtime, is refused, leaves no agent process and no ACP log, and close() resolves only after it ended; after a restart the session waits for input", async () => {
    const first = await serverWithTask();
    const taskId = first.taskId;
    let srv = first.srv;
    cleanups.push(() => srv.close());

    // Hold the launch at the runtime's door: the worktree exists, the agent is not started yet.
    const runtime = srv.server.deps.agents;
    const { atStart, letGo, started } = holdStarts(srv);
    const launches = srv.server.deps.launches;
    const realSettled = launches.settled.bind(launches);
    // The launch goes on once the stop waits for launches on their way, or once the stop has
    // resolved (a stop that does not wait): whichever comes first says which one this server is.
    // The held launch cannot settle: a settled(0) that says "not all settled" is that launch followed.
    let heldLaunchFollowed = false;
    launches.settled = async (ms) => {
      heldLaunchFollowed = !(await realSettled(0));
      letGo();
      return realSettled(ms);
    };

    let launchEnded = false;
    const launch = srv.server.orchestrator
      .startSession(taskId, {})
      .catch((e: unknown) => e)
      .finally(() => (launchEnded = true));
    const input = await atStart;
    await srv.stop().finally(letGo);
    expect(heldLaunchFollowed).toBe(true);
    expect(launchEnded).toBe(true);
    await launch;
    const outcome = await started();
    if (outcome && typeof outcome === "object" && "stop" in outcome) await (outcome as AgentHandle).stop({ graceMs: 500 });

    expect(outcome).toMatchObject({ code: "agent_start_failed", details: { reason: "server_stopping" } });
    expect(runtime.liveCount()).toBe(0);
    expect(processesWithCwd((d) => d.startsWith(`${srv.home}/`))).toEqual([]);
    expect(existsSync(input.logFile)).toBe(false);

    // The restart tells the truth about the launch the stop cut short.
    srv = await startTestServer("sqlite", { home: srv.home, databaseUrl: srv.databaseUrl });
    // FLOWS "Start-up": a session the stop interrupted, its environment ready, waits for input.
    const session = await waitForSession(srv.api, input.sessionId, ["failed", "waiting_for_input", "completed", "cancelled"]);
    expect(session.state).toBe("waiting_for_input");
  });

  // The stop's refusal can also land while the store is still open (between the runtime's close()
  // and the store's): the launch must not then write `failed` where a later refusal would leave
  // the session to start-up recovery. Both launch paths: a new session and a prompt that brings
  // a session's agent back.
  for (const via of ["a new session", "a prompt after a restart"] as const) {
    it(`SES-5.9 FLOWS Start-up: ${via} refused while the store is still open → not failed; after a restart the session waits for input`, async () => {
      const first = await serverWithTask();
      const taskId = first.taskId;
      let srv = first.srv;
      cleanups.push(() => srv.close());
      let sessionId: string | undefined;
      if (via === "a prompt after a restart") {
        // A session that waits for input with no agent: the prompt has to start one.
        const s = await srv.api("POST", `/tasks/${taskId}/sessions`, { prompt: "" });
        expect(s.status).toBe(201);
        sessionId = s.body.id as string;
        await waitForSession(srv.api, sessionId, ["waiting_for_input"]);
        await srv.stop();
        srv = await startTestServer("sqlite", { home: srv.home, databaseUrl: srv.databaseUrl });
      }

      const runtime = srv.server.deps.agents;
      const realClose = runtime.close.bind(runtime);
      const { atStart, letGo } = holdStarts(srv);
      const orchestrator = srv.server.orchestrator;
      const launch: Promise<{ id: string; state: string } | unknown> =
        sessionId === undefined
          ? orchestrator.startSession(taskId, {}).catch((e: unknown) => e)
          : orchestrator.prompt(sessionId, "hello").catch((e: unknown) => e);
      // The refusal is let through right after close() resolved, and the launch has ended before
      // the shutdown goes on to close the store.
      let ended: { id: string; state: string } | unknown;
      runtime.close = async (opts) => {
        await realClose(opts);
        letGo();
        ended = await launch;
      };
      await atStart;
      await srv.stop();

      expect(ended).toMatchObject({ state: sessionId === undefined ? "starting" : "running" });
      const id = (ended as { id: string }).id;
      srv = await startTestServer("sqlite", { home: srv.home, databaseUrl: srv.databaseUrl });
      const session = await waitForSession(srv.api, id, ["failed", "waiting_for_input"]);
      expect(session.state).toBe("waiting_for_input");
      expect(session.lastError).toBeNull();
    });
  }
});
