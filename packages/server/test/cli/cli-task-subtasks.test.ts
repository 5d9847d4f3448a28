import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../fixture/server.js";
import { briefTask, mcpAnswers, runSession } from "../mcp/helpers.js";
import { runGrove } from "./run-cli.js";

// MCP-2/MCP-3 in the CLI (docs/specs/cli.md): `grove task show` prints a task's parent, its
// agent's progress and its subtasks with their state; `grove task ls --parent` lists the
// subtasks. The bundled CLI against a real server and the real scripted agent.
describe("MCP-2/MCP-3 grove task show: parent, progress and subtasks; task ls --parent", () => {
  let srv: TestServer;
  const ids = { parent: "", code: "", docs: "" };
  const grove = (...args: string[]) => runGrove([...args, "--server", srv.url]);

  beforeAll(async () => {
    srv = await startTestServer("sqlite");
    const { task } = await briefTask(srv, "Lantern parent", "split me");
    ids.parent = task.id;
    const sid = await runSession(
      srv,
      task.id,
      [
        'mcp report_progress {"status":"docs next","plan":[{"content":"code the glow","status":"completed"},{"content":"write the docs","status":"in_progress"}]}',
        'mcp subtask_create {"title":"Lantern code"}',
        'mcp subtask_create {"title":"Lantern docs"}',
      ].join("\n"),
    );
    const [, a, b] = await mcpAnswers(srv, sid);
    ids.code = a.task.id;
    ids.docs = b.task.id;
    expect((await srv.api("PATCH", `/tasks/${ids.code}`, { state: "done" })).status).toBe(200);
  });
  afterAll(async () => {
    await srv?.close();
  });

  it("MCP-2 MCP-3 task show of a parent prints its progress (status, n of m done, each plan item) and its subtasks with their state; --json carries them", async () => {
    const r = await grove("task", "show", ids.parent);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines.find((l) => l.startsWith("progress:"))).toMatch(/^progress: docs next {2}\(1 of 2 done\) {2}reported /);
    const at = lines.findIndex((l) => l.startsWith("progress:"));
    expect(lines.slice(at + 1, at + 3).map((l) => l.trim().split(/\s{2,}/))).toEqual([
      ["completed", "code the glow"],
      ["in_progress", "write the docs"],
    ]);
    const sub = lines.findIndex((l) => l.startsWith("subtasks:"));
    expect(lines[sub]).toBe("subtasks: 2, 1 done");
    expect(lines.slice(sub + 1, sub + 3).map((l) => l.trim().split(/\s{2,}/))).toEqual([
      [ids.code, "Done", "Lantern code"],
      [ids.docs, "To do", "Lantern docs"],
    ]);
    expect(lines.some((l) => l.startsWith("parent:"))).toBe(false);

    const j = await grove("task", "show", ids.parent, "--json");
    const shown = JSON.parse(j.stdout) as { progress: { status: string; plan: unknown[] }; subtasks: { id: string; state: string; parentId: string }[] };
    expect(shown.progress).toMatchObject({
      status: "docs next",
      plan: [
        { content: "code the glow", status: "completed" },
        { content: "write the docs", status: "in_progress" },
      ],
    });
    expect(shown.subtasks.map((s) => [s.id, s.state, s.parentId])).toEqual([
      [ids.code, "done", ids.parent],
      [ids.docs, "todo", ids.parent],
    ]);
  });

  it("MCP-3 task show of a subtask prints its parent (id, state, title); none reported progress and no subtasks say so", async () => {
    const r = await grove("task", "show", ids.docs);
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines[1]).toMatch(new RegExp(`^parent: ${ids.parent} {2}[\\w ]+ {2}Lantern parent$`));
    expect(lines).toContain("progress: none reported");
    expect(lines).toContain("subtasks: none");
  });

  it("MCP-3 task ls --parent lists only that task's subtasks (newest first)", async () => {
    const r = await grove("task", "ls", "--parent", ids.parent, "--json");
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as { id: string }[]).map((t) => t.id)).toEqual([ids.docs, ids.code]);
    const none = await grove("task", "ls", "--parent", ids.code);
    expect(none.stdout.trim()).toBe("no tasks match");
  });
});
