import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { scriptedAgentCommand } from "../../src/agents/profiles.js";
import { ONE_DATABASE, freshDatabase } from "../fixture/db.js";
import { repoAndTask } from "../fixture/scenario.js";
import { startTestServer, waitFor, waitForSession, type DbKind, type TestServer } from "../fixture/server.js";

type Msg = { role: string; text: string; data?: { toolCallId?: string; status?: string; input?: unknown; kind?: string } };

async function messages(srv: TestServer, sid: string): Promise<Msg[]> {
  return (await srv.api("GET", `/sessions/${sid}/messages`)).body as Msg[];
}

async function launch(srv: TestServer, prompt?: string, agent?: string): Promise<{ sid: string; taskId: string; worktree: string }> {
  const { task } = await repoAndTask(srv);
  const s = await srv.api("POST", `/tasks/${task.id}/sessions`, { ...(agent ? { agent } : {}), ...(prompt ? { prompt } : {}) });
  expect(s.status, JSON.stringify(s.body)).toBe(201);
  const ws = (await srv.api("GET", `/sessions/${s.body.id}/workspace`)).body;
  return { sid: s.body.id, taskId: task.id, worktree: ws.workspacePath };
}

/** An agents.json profile running the scripted agent under another name. */
function scriptedAs(name: string, extra: Record<string, unknown>): Record<string, unknown> {
  const c = scriptedAgentCommand();
  return { name, command: c.command, args: c.args, ...extra };
}

/** A test server whose GROVE_HOME/agents.json configures `agents`. */
async function serverWithAgents(kind: DbKind, agents: Record<string, unknown>[], env: Record<string, string> = {}): Promise<TestServer> {
  const db = await freshDatabase(kind);
  writeFileSync(join(db.home, "agents.json"), JSON.stringify({ agents }));
  return startTestServer(kind, db, env);
}

describe.each(ONE_DATABASE)("AG agents in sessions (%s)", (kind) => {
  let srv: TestServer | undefined;
  afterEach(async () => {
    await srv?.close();
    srv = undefined;
  });

  it("AG-1 a repeated tool_call for one toolCallId updates its row: one row, full input, ending completed", async () => {
    srv = await startTestServer(kind);
    const { sid } = await launch(srv, "dup hello world");
    await waitForSession(srv.api, sid, ["waiting_for_input"]);
    const tools = (await messages(srv, sid)).filter((m) => m.role === "tool");
    expect(tools).toHaveLength(1);
    expect(tools[0]).toMatchObject({
      text: "dup hello world",
      data: { status: "completed", kind: "edit", input: { command: "dup", argument: "hello world" } },
    });
  });

  it("AG-1 a tool call left open is closed when the turn ends, when it is cancelled (within 2 s) and when the agent dies", async () => {
    srv = await startTestServer(kind);
    const { sid } = await launch(srv, "open left open\nsay bye");
    await waitForSession(srv.api, sid, ["waiting_for_input"]);
    await waitFor(
      async () => (await messages(srv!, sid)).find((m) => m.role === "tool")?.data?.status === "cancelled",
      "the open tool call closed at end_turn",
    );

    expect((await srv.api("POST", `/sessions/${sid}/prompt`, { prompt: "open waiting\nsleep 60000" })).status).toBe(202);
    await waitFor(async () => (await messages(srv!, sid)).some((m) => m.text === "sleep 60000"), "the sleep to start");
    const t0 = Date.now();
    expect((await srv.api("POST", `/sessions/${sid}/cancel`)).status).toBe(202);
    await waitForSession(srv.api, sid, ["waiting_for_input"], 2000);
    await waitFor(
      async () =>
        (await messages(srv!, sid)).filter((m) => m.role === "tool").every((m) => ["completed", "failed", "cancelled"].includes(m.data?.status ?? "")),
      "every tool row closed",
      2000,
    );
    expect(Date.now() - t0).toBeLessThan(2000);

    expect((await srv.api("POST", `/sessions/${sid}/prompt`, { prompt: "open doomed\ncrash 3" })).status).toBe(202);
    await waitForSession(srv.api, sid, ["failed"]);
    await waitFor(
      async () => (await messages(srv!, sid)).find((m) => m.text === "open doomed")?.data?.status === "interrupted",
      "the open tool call interrupted by the crash",
    );
  });

  it("AG-2 modes and models reported over ACP are on the Session, switchable by API; mode `ask` makes the agent ask, answerable by API", async () => {
    srv = await serverWithAgents(kind, [scriptedAs("asker", { permissionPolicy: "ask" })]);
    const { sid, worktree } = await launch(srv, undefined, "asker");
    await waitForSession(srv.api, sid, ["waiting_for_input"]);
    const s = (await srv.api("GET", `/sessions/${sid}`)).body;
    expect(s.modes).toEqual({ currentModeId: "auto", availableModes: [expect.objectContaining({ id: "auto" }), expect.objectContaining({ id: "ask" })] });
    expect(s.models).toMatchObject({ currentModelId: "scripted-small", availableModels: [{ modelId: "scripted-small" }, { modelId: "scripted-large" }] });

    const bad = await srv.api("POST", `/sessions/${sid}/mode`, { modeId: "yolo" });
    expect(bad.status).toBe(409);
    expect(bad.body.error).toMatchObject({ code: "agent_option_unsupported", details: { offered: ["auto", "ask"] } });
    expect((await srv.api("POST", `/sessions/${sid}/mode`, {})).status).toBe(400);
    const switched = await srv.api("POST", `/sessions/${sid}/mode`, { modeId: "ask" });
    expect(switched.status).toBe(200);
    expect(switched.body.modes.currentModeId).toBe("ask");
    expect((await srv.api("POST", `/sessions/${sid}/model`, { modelId: "scripted-large" })).body.models.currentModelId).toBe("scripted-large");

    expect((await srv.api("POST", `/sessions/${sid}/prompt`, { prompt: "mode\nwrite asked.txt hi" })).status).toBe(202);
    const asks = await waitFor(async () => {
      const p = (await srv!.api("GET", `/sessions/${sid}/permissions`)).body as {
        requestId: string;
        toolKind?: string;
        options: { optionId: string; kind: string }[];
      }[];
      return p.length > 0 ? p : undefined;
    }, "the permission request");
    expect(asks[0]!.toolKind).toBe("edit");
    const allow = asks[0]!.options.find((o) => o.kind === "allow_once")!;
    expect((await srv.api("POST", `/sessions/${sid}/permissions/${asks[0]!.requestId}`, { optionId: allow.optionId })).status).toBe(204);
    await waitForSession(srv.api, sid, ["waiting_for_input"]);
    expect(readFileSync(join(worktree, "asked.txt"), "utf8")).toBe("hi");
    expect((await messages(srv, sid)).some((m) => m.role === "agent" && m.text.includes("mode: ask model: scripted-large"))).toBe(true);
  });

  it("AG-2 permissionPolicy ask is mapped onto the agent's asking mode, and re-applied after session/load on a restarted server", async () => {
    srv = await serverWithAgents(kind, [scriptedAs("asker", { permissionPolicy: "ask", policyModes: { ask: "ask" } })]);
    const { sid } = await launch(srv, undefined, "asker");
    await waitForSession(srv.api, sid, ["waiting_for_input"]);
    expect((await srv.api("GET", `/sessions/${sid}`)).body.modes.currentModeId).toBe("ask");
    const home = srv.home;
    const databaseUrl = srv.databaseUrl;
    await srv.stop();
    srv = await startTestServer(kind, { home, databaseUrl });
    expect((await srv.api("POST", `/sessions/${sid}/prompt`, { prompt: "mode" })).status).toBe(202);
    await waitForSession(srv.api, sid, ["waiting_for_input"]);
    const log = readFileSync(join(home, "logs", `${sid}.acp.jsonl`), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l).msg);
    expect(log.filter((m) => m.method === "session/load")).toHaveLength(1);
    const afterLoad = log.slice(log.findIndex((m) => m.method === "session/load"));
    expect(afterLoad.some((m) => m.method === "session/set_mode" && m.params.modeId === "ask")).toBe(true);
    expect((await messages(srv, sid)).some((m) => m.role === "agent" && m.text.startsWith("mode: ask"))).toBe(true);
  });

  it("AG-3 GET /agents reports availability; an uninstalled bridge or a missing command fails a start at once with agent_unavailable, nothing created", async () => {
    srv = await serverWithAgents(kind, [{ name: "ghost", command: "grove-no-such-agent-cmd" }]);
    const agents = (await srv.api("GET", "/agents")).body as { name: string; available: boolean; problem?: string; package?: string }[];
    expect(agents.find((a) => a.name === "scripted")!.available).toBe(true);
    expect(agents.find((a) => a.name === "claude")).toMatchObject({ available: false, package: "@agentclientprotocol/claude-agent-acp@0.101.0" });
    expect(agents.find((a) => a.name === "claude")!.problem).toContain("grove agents install claude");
    expect(agents.find((a) => a.name === "ghost")).toMatchObject({ available: false });
    const { task } = await repoAndTask(srv);
    for (const agent of ["claude", "ghost"]) {
      const t0 = Date.now();
      const r = await srv.api("POST", `/tasks/${task.id}/sessions`, { agent, prompt: "hello" });
      expect(r.status).toBe(409);
      expect(r.body.error.code).toBe("agent_unavailable");
      expect(r.body.error.details.fix).toBeTruthy();
      expect(Date.now() - t0).toBeLessThan(1000);
    }
    expect((await srv.api("GET", `/tasks/${task.id}/sessions`)).body).toEqual([]);
    expect((await srv.api("GET", `/tasks/${task.id}/environment`)).status).toBe(404);
  });

  it("AG-1 SES-6 the summary after a failed session/load is its own content block before the person's words; server.log lines carry one pid key", async () => {
    srv = await startTestServer(kind, undefined, { GROVE_LOG_LEVEL: "info" });
    const { sid } = await launch(srv, "say first turn");
    await waitForSession(srv.api, sid, ["waiting_for_input"]);
    const home = srv.home;
    const databaseUrl = srv.databaseUrl;
    await srv.stop();
    // The agent forgets the conversation: its session/load fails and Grove sends a summary.
    const { rmSync } = await import("node:fs");
    rmSync(join(home, "agents", "scripted"), { recursive: true, force: true });
    srv = await startTestServer(kind, { home, databaseUrl }, { GROVE_LOG_LEVEL: "info" });
    expect((await srv.api("POST", `/sessions/${sid}/prompt`, { prompt: "say second turn" })).status).toBe(202);
    await waitForSession(srv.api, sid, ["waiting_for_input"]);
    const frames = readFileSync(join(home, "logs", `${sid}.acp.jsonl`), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l).msg);
    const prompts = frames.filter((m) => m.method === "session/prompt");
    const last = prompts.at(-1).params.prompt as { type: string; text: string }[];
    expect(last).toHaveLength(2);
    expect(last[0]!.text).toMatch(/^> Summary of this conversation/);
    expect(last[0]!.text).toContain("say first turn");
    expect(last[1]).toEqual({ type: "text", text: "say second turn" });
    await srv.stop();
    const lines = readFileSync(join(home, "logs", "server.log"), "utf8")
      .split("\n")
      .filter(Boolean);
    for (const l of lines) expect(l.match(/"pid":/g)?.length ?? 0, l).toBeLessThanOrEqual(1);
    expect(lines.some((l) => l.includes('"agent started"') && /"agentPid":\d+/.test(l))).toBe(true);
  });
});
