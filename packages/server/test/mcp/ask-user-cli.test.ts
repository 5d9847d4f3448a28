import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, waitFor, waitForSession, type TestServer } from "../fixture/server.js";
import { runGrove } from "../cli/run-cli.js";
import { briefTask, mcpAnswers } from "./helpers.js";

// MCP-3 with the bundled CLI: `grove inbox` shows an agent's question with its choices and
// `grove inbox answer` answers it; the waiting tool call returns the answer.
describe("MCP-3 grove inbox answer", () => {
  let srv: TestServer;
  const grove = (...args: string[]) => runGrove([...args, "--server", srv.url]);

  beforeAll(async () => {
    srv = await startTestServer("sqlite");
  });
  afterAll(async () => {
    await srv?.close();
  });

  it("MCP-3: grove inbox lists the question with its choices; grove inbox answer answers it; a wrong choice fails with the code", async () => {
    const { task } = await briefTask(srv, "Asked", "a");
    const s = await srv.api("POST", `/tasks/${task.id}/sessions`, { prompt: 'mcp ask_user {"question":"Which colour?","choices":["dark red","blue"]}' });
    const item = await waitFor(
      async () => ((await srv.api("GET", "/inbox")).body as { id: string; kind: string }[]).find((i) => i.kind === "question"),
      "the question",
    );
    const ls = await grove("inbox");
    expect(ls.stdout).toMatch(new RegExp(`^${item.id}\\s+Question\\s+.*Asked: Which colour\\? \\[dark red \\| blue\\]$`, "m"));
    const wrong = await grove("inbox", "answer", item.id, "green");
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/^error: invalid_request: answer with one of: dark red, blue/);
    const ok = await grove("inbox", "answer", item.id, "dark", "red");
    expect(ok.code).toBe(0);
    expect(ok.stdout).toBe("answered: Asked: Which colour? → dark red\n");
    await waitForSession(srv.api, s.body.id, ["waiting_for_input"]);
    expect((await mcpAnswers(srv, s.body.id))[0]).toEqual({ answer: "dark red" });
  });
});
