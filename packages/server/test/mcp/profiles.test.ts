import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { scriptedAgentCommand } from "../../src/agents/profiles.js";
import { DATABASES, freshDatabase } from "../fixture/db.js";
import { startTestServer, type TestServer } from "../fixture/server.js";
import { briefTask, mcpAnswers, messages, runSession } from "./helpers.js";

// MCP-2: the scope of Grove's MCP server per agent profile (`mcp: "task" | "none" | "board"`).
describe.each(DATABASES)("MCP-2 scope per profile (%s)", (kind) => {
  it("MCP-2: mcp \"none\" gets no grove server; \"board\" lists every task but changes none; the default profile may not list the board", async () => {
    const db = await freshDatabase(kind);
    mkdirSync(db.home, { recursive: true });
    const { command, args } = scriptedAgentCommand();
    const profile = (name: string, mcp: string) => ({ name, command, args, env: { GROVE_SCRIPTED_STATE_DIR: join(db.home, "agents", name) }, permissionPolicy: "auto_approve", mcp });
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
});
