import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { scriptedAgentCommand } from "../../src/agents/profiles.js";
import { ONE_DATABASE, freshDatabase } from "../fixture/db.js";
import { startTestServer, type TestServer } from "../fixture/server.js";
import { briefTask, callTool, captureTokens, mcpAnswers, messages, runSession, shimClient, waitFor } from "./helpers.js";

// MCP-2: the scope of Grove's MCP server per agent profile (`mcp: "task" | "none" | "board"`).
describe.each(ONE_DATABASE)("MCP-2 scope per profile (%s)", (kind) => {
  it('MCP-2: mcp "none" gets no grove server; "board" lists every task but changes none; the default profile may not list the board', async () => {
    const db = await freshDatabase(kind);
    mkdirSync(db.home, { recursive: true });
    const { command, args } = scriptedAgentCommand();
    const profile = (name: string, mcp: string) => ({
      name,
      command,
      args,
      env: { GROVE_SCRIPTED_STATE_DIR: join(db.home, "agents", name) },
      permissionPolicy: "auto_approve",
      mcp,
    });
    writeFileSync(join(db.home, "agents.json"), JSON.stringify({ agents: [profile("quiet", "none"), profile("overseer", "board")] }));
    let srv: TestServer | undefined;
    try {
      srv = await startTestServer(kind, db);
      const { task: a } = await briefTask(srv, "Alpha", "a");
      const { task: b } = await briefTask(srv, "Beta", "b");
      const quiet = await runSession(srv, a.id, "mcp task_get {}", "quiet");
      expect((await messages(srv, quiet)).some((m) => m.role === "agent" && /no stdio MCP server named grove/.test(m.text))).toBe(true);
      expect(await mcpAnswers(srv, quiet)).toEqual([]);

      const overseer = await runSession(srv, a.id, `mcp board_list {}\nmcp task_update {"taskId":"${b.id}","title":"Taken over"}`, "overseer");
      const [board, refused] = await mcpAnswers(srv, overseer);
      expect((board as { id: string }[]).map((t) => t.id).sort()).toEqual([a.id, b.id].sort());
      expect(refused.error.code).toBe("mcp_forbidden");
      expect((await srv.api("GET", `/tasks/${b.id}`)).body.title).toBe("Beta");

      const plain = await runSession(srv, a.id, "mcp board_list {}");
      expect((await mcpAnswers(srv, plain))[0].error.code).toBe("mcp_forbidden");
    } finally {
      await srv?.close();
    }
  });

  it("MCP-1: a profile's mcpToolNames serves ask_user only as ask_person; a call of ask_person is the ask_user question, answered through the inbox", async () => {
    const db = await freshDatabase(kind);
    mkdirSync(db.home, { recursive: true });
    const { command, args } = scriptedAgentCommand();
    writeFileSync(
      join(db.home, "agents.json"),
      JSON.stringify({
        agents: [
          {
            name: "renamed",
            command,
            args,
            env: { GROVE_SCRIPTED_STATE_DIR: join(db.home, "agents", "renamed") },
            permissionPolicy: "auto_approve",
            mcpToolNames: { ask_user: "ask_person" },
          },
        ],
      }),
    );
    let srv: TestServer | undefined;
    try {
      srv = await startTestServer(kind, db);
      const tokens = captureTokens(srv);
      const { task } = await briefTask(srv, "Gamma", "g");
      const sid = await runSession(srv, task.id, "say ready", "renamed");
      const client = await shimClient(srv, sid, tokens.get(sid)![0]!);
      try {
        const names = (await client.listTools()).tools.map((t) => t.name);
        expect(names).toContain("ask_person");
        expect(names).not.toContain("ask_user");
        expect(names).toContain("task_get");
        expect(await callTool(client, "ask_user", { question: "Old name?" })).toMatchObject({ isError: true, json: { error: { code: "invalid_request" } } });
        const asked = callTool(client, "ask_person", { question: "Tea or coffee?", choices: ["tea", "coffee"] });
        const item = await waitFor(
          async () =>
            ((await srv!.api("GET", "/inbox")).body as { id: string; kind: string; detail?: string; choices?: string[] }[]).find((i) => i.kind === "question"),
          "the question",
        );
        expect(item).toMatchObject({ detail: "Tea or coffee?", choices: ["tea", "coffee"] });
        expect((await srv.api("POST", `/inbox/${item.id}/answer`, { answer: "tea" })).status).toBeLessThan(300);
        expect(await asked).toEqual({ isError: false, json: { answer: "tea" } });
        // The transcript names the tool by what it is.
        // (Rows are written behind the call, through the recorder's write chain.)
        await waitFor(async () => (await messages(srv!, sid)).some((m) => m.role === "tool" && m.text === "grove: ask_user"), "the grove: ask_user tool row");
      } finally {
        await client.close();
      }
    } finally {
      await srv?.close();
    }
  });
});
