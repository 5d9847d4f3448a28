import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { ONE_DATABASE } from "../fixture/db.js";
import { serverPerTest, waitForSession } from "../fixture/server.js";
import { briefTask, callTool, captureTokens, mcpAnswers, messages, runSession, shimClient, waitFor } from "./helpers.js";

const DOC = resolve(import.meta.dirname, "../../../../docs/specs/mcp.md");

/** The tool names of docs/specs/mcp.md's tool table (rows starting with a `name`). */
function documentedTools(): string[] {
  const doc = readFileSync(DOC, "utf8");
  const section = doc.slice(doc.indexOf("## Tools"), doc.indexOf("\n## ", doc.indexOf("## Tools") + 1));
  return [...section.matchAll(/^\| `([a-z_]+)` \|/gm)].map((m) => m[1]!);
}

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...filesUnder(p));
    else if (e.isFile() && statSync(p).size < 20_000_000) out.push(p);
  }
  return out;
}

describe.each(ONE_DATABASE)("Grove's MCP server for agents (%s)", (kind) => {
  const perTest = serverPerTest(kind);

  it("MCP-1: a session's agent gets the grove server; task_get returns the brief; report_progress and task_update act on its own task; each call is a transcript tool row", async () => {
    const srv = await perTest.start();
    const { task, repository } = await briefTask(srv, "Widget", "Make the widget blue.\nKeep the tests green.");
    const sid = await runSession(
      srv,
      task.id,
      [
        "mcp task_get {}",
        'mcp report_progress {"status":"painting","plan":[{"content":"paint","status":"in_progress"}]}',
        'mcp task_update {"title":"Blue widget"}',
      ].join("\n"),
    );
    const [got, progress, updated] = await mcpAnswers(srv, sid);
    expect(got).toMatchObject({
      id: task.id,
      title: "Widget",
      brief: "Make the widget blue.\nKeep the tests green.",
      state: expect.any(String),
      comments: [],
      progress: null,
    });
    expect(got.repositories).toEqual([{ repositoryId: repository.id, name: repository.name, baseBranch: expect.any(String), branch: expect.any(String) }]);
    expect(Array.isArray(got.changes)).toBe(true);
    // No host path anywhere in an answer.
    expect(JSON.stringify(got)).not.toContain(srv.home);
    expect(progress).toMatchObject({ status: "painting", plan: [{ content: "paint", status: "in_progress" }] });
    expect(updated).toMatchObject({ id: task.id, title: "Blue widget" });
    const t = (await srv.api("GET", `/tasks/${task.id}`)).body;
    expect(t.title).toBe("Blue widget");
    expect(t.progress).toMatchObject({ status: "painting", plan: [{ content: "paint", status: "in_progress" }] });
    const rows = (await messages(srv, sid)).filter((m) => m.role === "tool" && m.data?.mcp);
    expect(rows.map((m) => [m.text, m.data.mcp.tool, m.data.mcp.outcome, m.data.status])).toEqual([
      ["grove: task_get", "task_get", "ok", "completed"],
      ["grove: report_progress", "report_progress", "ok", "completed"],
      ["grove: task_update", "task_update", "ok", "completed"],
    ]);
    expect(rows[2]!.data.mcp.arguments).toEqual({ title: "Blue widget" });
  });

  it("MCP-2: comment_create leaves a line comment on its own task's Changes; comments_list and comment_resolve act on it; task_get shows it while open", async () => {
    const srv = await perTest.start();
    const { task } = await briefTask(srv, "Reviewed", "review me", { "src/a.txt": "one\ntwo\n" });
    const s = await srv.api("POST", `/tasks/${task.id}/sessions`, {
      prompt: 'mcp comment_create {"path":"src/a.txt","line":2,"body":"Say more"}\nmcp comments_list {}\nmcp task_get {}',
    });
    await waitForSession(srv.api, s.body.id, ["waiting_for_input"]);
    const [created, listed, got] = await mcpAnswers(srv, s.body.id);
    expect(created).toMatchObject({ path: "src/a.txt", line: 2, side: "new", body: "Say more", state: "open" });
    expect(listed.map((c: any) => c.id)).toEqual([created.id]);
    expect(got.comments.map((c: any) => c.id)).toEqual([created.id]);
    expect((await srv.api("GET", `/tasks/${task.id}/comments`)).body.map((c: any) => c.id)).toEqual([created.id]);
    expect(
      (await srv.api("POST", `/sessions/${s.body.id}/prompt`, { prompt: `mcp comment_resolve {"commentId":"${created.id}"}\nmcp task_get {}` })).status,
    ).toBe(202);
    await waitFor(async () => (await mcpAnswers(srv, s.body.id)).length === 5, "the second turn's answers");
    const [, , , resolved, after] = await mcpAnswers(srv, s.body.id);
    expect(resolved).toMatchObject({ id: created.id, state: "resolved" });
    expect(after.comments).toEqual([]);
    expect((await srv.api("GET", `/tasks/${task.id}/comments`)).body[0].state).toBe("resolved");
  });

  it("MCP-2: a call naming another task is refused with mcp_forbidden and changes nothing; Done is not an agent's move", async () => {
    const srv = await perTest.start();
    const { task: mine } = await briefTask(srv, "Mine", "mine");
    const { task: other } = await briefTask(srv, "Other", "other");
    const sid = await runSession(
      srv,
      mine.id,
      [
        `mcp task_update {"taskId":"${other.id}","title":"Hijacked"}`,
        `mcp task_get {"taskId":"${other.id}"}`,
        `mcp comments_list {"taskId":"${other.id}"}`,
        'mcp task_update {"state":"done"}',
      ].join("\n"),
    );
    const answers = await mcpAnswers(srv, sid);
    expect(answers.slice(0, 3).map((a) => a.error?.code)).toEqual(["mcp_forbidden", "mcp_forbidden", "mcp_forbidden"]);
    expect((await srv.api("GET", `/tasks/${other.id}`)).body.title).toBe("Other");
    // The schema offers only "review": "done" is refused before the tool runs.
    expect(answers[3].error).toMatchObject({ code: "invalid_request", details: { field: "state" } });
    expect((await srv.api("GET", `/tasks/${mine.id}`)).body.state).not.toBe("done");
    const rows = (await messages(srv, sid)).filter((m) => m.role === "tool" && m.data?.mcp);
    expect(rows.map((m) => [m.data.mcp.outcome, m.data.status])).toEqual([
      ["mcp_forbidden", "failed"],
      ["mcp_forbidden", "failed"],
      ["mcp_forbidden", "failed"],
      ["invalid_request", "failed"],
    ]);
  });

  it("MCP-1: an ended session's token and another session's token are refused with mcp_token_invalid; nothing changes", async () => {
    const srv = await perTest.start();
    const tokens = captureTokens(srv);
    const { task: a } = await briefTask(srv, "Task A", "a");
    const { task: b } = await briefTask(srv, "Task B", "b");
    const ended = await runSession(srv, a.id, "say hi");
    const live = await runSession(srv, a.id, "say hello");
    const onB = await runSession(srv, b.id, "say there");
    const endedToken = tokens.get(ended)![0]!;
    // A token works while its session's agent lives.
    const ok = await shimClient(srv, ended, endedToken);
    try {
      expect((await callTool(ok, "task_get")).json.title).toBe("Task A");
      expect((await srv.api("DELETE", `/sessions/${ended}`)).status).toBe(204);
      // The connection opened before the end is refused from its next call on.
      const after = await callTool(ok, "task_update", { title: "Changed by a ghost" });
      expect(after).toMatchObject({ isError: true, json: { error: { code: "mcp_token_invalid" } } });
    } finally {
      await ok.close();
    }
    const stale = await shimClient(srv, ended, endedToken);
    try {
      expect(await callTool(stale, "task_get")).toMatchObject({ isError: true, json: { error: { code: "mcp_token_invalid" } } });
    } finally {
      await stale.close();
    }
    // Session B's token presented for a live session of task A: refused.
    const foreign = await shimClient(srv, live, tokens.get(onB)![0]!);
    try {
      expect(await callTool(foreign, "task_update", { title: "Hijacked" })).toMatchObject({ isError: true, json: { error: { code: "mcp_token_invalid" } } });
    } finally {
      await foreign.close();
    }
    expect((await srv.api("GET", `/tasks/${a.id}`)).body.title).toBe("Task A");
    expect((await srv.api("GET", `/tasks/${b.id}`)).body.title).toBe("Task B");
  });

  it("MCP-2: calls past the per-session rate are refused with mcp_rate_limited (a transcript row each)", async () => {
    const srv = await perTest.start({ GROVE_MCP_CALLS_PER_MINUTE: "2" });
    const { task } = await briefTask(srv, "Busy", "busy");
    const sid = await runSession(srv, task.id, ["mcp task_get {}", "mcp task_get {}", "mcp task_get {}"].join("\n"));
    const answers = await mcpAnswers(srv, sid);
    expect(answers.map((a) => a.error?.code ?? "ok")).toEqual(["ok", "ok", "mcp_rate_limited"]);
    expect(answers[2].error.details.retryAfterMs).toBeGreaterThan(0);
    const rows = (await messages(srv, sid)).filter((m) => m.role === "tool" && m.data?.mcp);
    expect(rows.map((m) => m.data.mcp.outcome)).toEqual(["ok", "ok", "mcp_rate_limited"]);
  });

  it("MCP-1: the capability token is in no log, transcript, ACP log or GET answer", async () => {
    const srv = await perTest.start();
    const tokens = captureTokens(srv);
    const { task } = await briefTask(srv, "Secret", "s");
    const sid = await runSession(srv, task.id, 'mcp task_get {}\nmcp report_progress {"status":"ok"}');
    expect((await mcpAnswers(srv, sid))[0].title).toBe("Secret");
    const token = tokens.get(sid)![0]!;
    const answers = await Promise.all(
      [
        `/sessions/${sid}`,
        `/sessions/${sid}/messages`,
        `/tasks/${task.id}`,
        `/tasks/${task.id}/sessions`,
        "/tasks",
        `/sessions/${sid}/workspace`,
        "/inbox?state=all",
      ].map((p) => srv.api("GET", p)),
    );
    for (const a of answers) expect(JSON.stringify(a.body)).not.toContain(token);
    await srv.stop();
    const files = filesUnder(srv.home);
    expect(files.some((f) => f.endsWith(".jsonl") || f.includes("acp"))).toBe(true);
    for (const f of files) expect(readFileSync(f).includes(token), f).toBe(false);
  });

  it("MCP-1: the served tool list is exactly the one docs/specs/mcp.md lists, with their schemas", async () => {
    const srv = await perTest.start();
    const tokens = captureTokens(srv);
    const { task } = await briefTask(srv, "Tools", "t");
    const sid = await runSession(srv, task.id, "say hi");
    await waitForSession(srv.api, sid, ["waiting_for_input"]);
    const client = await shimClient(srv, sid, tokens.get(sid)![0]!);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(documentedTools().sort());
      for (const t of tools) expect(t.inputSchema.type).toBe("object");
    } finally {
      await client.close();
    }
  });
});
