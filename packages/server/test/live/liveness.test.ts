import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readScriptedState } from "../../src/agents/scripted-agent-state.js";
import { scriptedAgentCommand } from "../../src/agents/profiles.js";
import { ONE_DATABASE, freshDatabase } from "../fixture/db.js";
import { repoAndTask } from "../fixture/scenario.js";
import { openEvents, startTestServer, waitFor, waitForSession, type TestServer } from "../fixture/server.js";
import { afterEach } from "vitest";

const STALL_MS = 1500;

// LIVE-3: the state follows the agent's exit event at once; a silent turn becomes stalled, and
// restart resumes the conversation with session/load in the same worktree.
describe.each(ONE_DATABASE)("LIVE-3 liveness (%s)", (kind) => {
  let srv: TestServer | undefined;
  afterEach(async () => {
    await srv?.close();
    srv = undefined;
  });

  /** A server whose `quick` agent (the scripted one) stalls after STALL_MS without progress. */
  async function serverWithQuickStall(): Promise<{ srv: TestServer; stateDir: string }> {
    const db = await freshDatabase(kind);
    mkdirSync(db.home, { recursive: true });
    const stateDir = join(db.home, "agents", "quick");
    const { command, args } = scriptedAgentCommand();
    writeFileSync(
      join(db.home, "agents.json"),
      JSON.stringify({
        agents: [{ name: "quick", command, args, env: { GROVE_SCRIPTED_STATE_DIR: stateDir }, permissionPolicy: "auto_approve", stallAfterMs: STALL_MS }],
      }),
    );
    return { srv: await startTestServer(kind, db), stateDir };
  }

  it("LIVE-3 kill -9 of the agent mid-turn: the session fails at once (the exit event, no poll), the turn is failed and nothing stays attached", async () => {
    srv = await startTestServer(kind);
    const { task } = await repoAndTask(srv);
    const s = await srv.api("POST", `/tasks/${task.id}/sessions`, { prompt: "say working\nsleep 60000" });
    await waitFor(
      async () => ((await srv!.api("GET", `/sessions/${s.body.id}/messages`)).body as { text: string }[]).some((m) => m.text === "working"),
      "the turn to run",
    );
    const events = await openEvents(srv.url);
    try {
      const pid = srv.server.deps.agents.get(s.body.id)!.pid;
      const killedAt = Date.now();
      process.kill(-pid, "SIGKILL");
      const frame = await waitFor(
        () => events.frames.find((f) => f.type === "session.state_changed" && f.data.session.id === s.body.id && f.data.session.state === "failed"),
        "a failed frame",
        5000,
        20,
      );
      expect(Date.now() - killedAt).toBeLessThan(5000);
      expect(frame.data.from).toBe("running");
      expect(frame.data.session.lastTurn).toMatchObject({ outcome: "failed" });
      expect(frame.data.session.lastError.code).toBe("agent_crashed");
      expect(srv.server.deps.agents.get(s.body.id)).toBeUndefined();
    } finally {
      events.close();
    }
  });

  it("LIVE-3 a lost connection with the agent's process still alive: the session fails at once and the deaf process is stopped", async () => {
    const db = await freshDatabase(kind);
    mkdirSync(db.home, { recursive: true });
    const { command, args } = scriptedAgentCommand();
    // The ACP program exits mid-turn; its shell lives on as the same process with stdout closed,
    // so Grove sees the connection end while the process it started is still there. Unconfined:
    // inside bubblewrap its monitor keeps the stdout pipe open until the sandbox's main process
    // ends (docs/specs/liveness.md).
    const marker = String(600_000 + Math.floor(Math.random() * 90_000));
    const line = [command, ...args].map((a) => `'${a}'`).join(" ") + `; exec sleep ${marker} >/dev/null`;
    writeFileSync(
      join(db.home, "agents.json"),
      JSON.stringify({ agents: [{ name: "deaf", command: "/bin/sh", args: ["-c", line], permissionPolicy: "auto_approve", sandbox: "off" }] }),
    );
    srv = await startTestServer(kind, db);
    const { task } = await repoAndTask(srv);
    const s = await srv.api("POST", `/tasks/${task.id}/sessions`, { agent: "deaf" });
    expect(s.status).toBe(201);
    await waitForSession(srv.api, s.body.id, ["waiting_for_input"]);
    const sleepers = () =>
      readdirSync("/proc").filter(
        (n) =>
          /^\d+$/.test(n) &&
          (() => {
            try {
              return readFileSync(`/proc/${n}/cmdline`, "utf8").split("\0").join(" ").trim() === `sleep ${marker}`;
            } catch {
              return false;
            }
          })(),
      );
    expect((await srv.api("POST", `/sessions/${s.body.id}/prompt`, { prompt: "say going\ncrash 3" })).status).toBe(202);
    await waitFor(() => sleepers().length === 1, "the shell to live on after the ACP program exited");
    const failed = await waitForSession(srv.api, s.body.id, ["failed"], 5000);
    expect(failed.lastError.code).toBe("agent_crashed");
    expect(failed.lastTurn).toMatchObject({ outcome: "failed" });
    await waitFor(() => sleepers().length === 0, "the deaf process to be stopped", 10_000);
    expect(srv.server.deps.agents.get(s.body.id)).toBeUndefined();
  });

  it("LIVE-3 a turn whose agent goes silent becomes stalled; a running tool call counts as progress", async () => {
    const q = await serverWithQuickStall();
    srv = q.srv;
    const { task } = await repoAndTask(srv);
    // A tool call running longer than the limit (sleep is a pending tool call) is progress.
    const busy = await srv.api("POST", `/tasks/${task.id}/sessions`, { agent: "quick", prompt: `say busy\nsleep ${STALL_MS * 2}\nsay done` });
    const finished = await waitForSession(srv.api, busy.body.id, ["waiting_for_input", "failed"], 20_000);
    expect(finished.state).toBe("waiting_for_input");
    expect(finished.lastTurn.outcome).toBe("completed");

    const startedAt = Date.now();
    expect((await srv.api("POST", `/sessions/${busy.body.id}/prompt`, { prompt: "say about to go quiet\nhang 60000" })).status).toBe(202);
    const stalled = await waitForSession(srv.api, busy.body.id, ["failed"], 15_000);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(STALL_MS);
    expect(stalled.lastTurn).toMatchObject({ outcome: "stalled" });
    expect(stalled.lastTurn.reason).toMatch(/no update from the agent for 2 s|no update from the agent for 1 s/);
    expect(stalled.lastError).toMatchObject({ code: "turn_stalled", action: `POST /api/v1/sessions/${busy.body.id}/restart` });
    const summary = ((await srv.api("GET", "/tasks?view=summary")).body as { id: string; agent: { state: string; outcome?: string } }[]).find(
      (t) => t.id === task.id,
    )!;
    expect(summary.agent).toMatchObject({ state: "failed", outcome: "stalled" });
    // LIVE-4: the stall is an inbox item of its own kind.
    await waitFor(
      async () =>
        ((await srv!.api("GET", "/inbox")).body as { kind: string; sessionId?: string }[]).some((i) => i.kind === "stalled" && i.sessionId === busy.body.id),
      "a stalled inbox item",
    );
    // The agent is still attached inside its silent turn, for the person to cancel or restart.
    expect(srv.server.deps.agents.get(busy.body.id)?.busy).toBe(true);
  });

  it("LIVE-3 restart of a stalled session: the old agent is stopped, a new one resumes with session/load in the same worktree, and the session works again", async () => {
    const q = await serverWithQuickStall();
    srv = q.srv;
    const { task } = await repoAndTask(srv);
    const s = await srv.api("POST", `/tasks/${task.id}/sessions`, { agent: "quick", prompt: "write before.txt kept\nhang 60000" });
    await waitForSession(srv.api, s.body.id, ["failed"], 15_000);
    const deps = srv.server.deps;
    const oldPid = deps.agents.get(s.body.id)!.pid;
    const acpId = (await deps.store.getSession(s.body.id))!.acpSessionId!;
    const ws = (await srv.api("GET", `/sessions/${s.body.id}/workspace`)).body;
    expect(readScriptedState(acpId, q.stateDir)!.loads).toEqual([]);

    const r = await srv.api("POST", `/sessions/${s.body.id}/restart`);
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({ state: "waiting_for_input", lastError: null });
    const handle = deps.agents.get(s.body.id)!;
    expect(handle.pid).not.toBe(oldPid);
    expect(handle.resumed).toBe(true);
    // session/load of the same ACP session, in the same worktree.
    expect(readScriptedState(acpId, q.stateDir)!.loads.map((l) => l.cwd)).toEqual([ws.workspacePath]);
    expect(() => process.kill(oldPid, 0)).toThrow();

    expect((await srv.api("POST", `/sessions/${s.body.id}/prompt`, { prompt: "read before.txt" })).status).toBe(202);
    await waitFor(async () => (await srv!.api("GET", `/sessions/${s.body.id}`)).body.lastTurn?.outcome === "completed", "a completed turn after the restart");
    const msgs = (await srv.api("GET", `/sessions/${s.body.id}/messages`)).body as { role: string; text: string }[];
    expect(msgs.some((m) => m.role === "agent" && m.text === "kept")).toBe(true);
    expect(msgs.some((m) => m.role === "system" && m.text.startsWith("turn stalled: "))).toBe(true);
  });

  it("LIVE-3 restart of an unknown session is 404 not_found", async () => {
    srv = await startTestServer(kind);
    const r = await srv.api("POST", "/sessions/ses_missing/restart");
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe("not_found");
  });
});
