import { describe, expect, it } from "vitest";
import { ONE_DATABASE } from "../fixture/db.js";
import { serverPerTest, waitFor, waitForSession } from "../fixture/server.js";
import { briefTask, callTool, captureTokens, mcpAnswers, runSession, shimClient } from "./helpers.js";

// MCP-3: subtasks carry a parent link and per-task depth/count/agent limits.
describe.each(ONE_DATABASE)("MCP-3 subtasks (%s)", (kind) => {
  const perTest = serverPerTest(kind);

  it("MCP-3: subtask_create makes a child with its parent link that starts with the named profile; ?parentId= lists it; the parent reads its state and Changes with subtask_list / subtask_get", async () => {
    const srv = await perTest.start();
    const { task: parent } = await briefTask(srv, "Parent", "split me");
    const sid = await runSession(
      srv,
      parent.id,
      'mcp subtask_create {"title":"Child","description":"write it","agent":"scripted","prompt":"write child.txt hello\\ncommit child work"}',
    );
    const [created] = await mcpAnswers(srv, sid);
    expect(created.task).toMatchObject({ title: "Child", parentId: parent.id, state: expect.any(String) });
    expect(created.session).toMatchObject({ agent: "scripted" });
    const childId = created.task.id as string;
    expect((await srv.api("GET", `/tasks/${childId}`)).body).toMatchObject({
      parentId: parent.id,
      description: "write it",
      repositories: [{ repositoryId: parent.repositories[0].repositoryId }],
    });
    expect(((await srv.api("GET", `/tasks?parentId=${parent.id}`)).body as { id: string }[]).map((t) => t.id)).toEqual([childId]);
    expect((await srv.api("GET", `/tasks/${parent.id}`)).body.parentId).toBeUndefined();
    await waitForSession(srv.api, created.session.id, ["waiting_for_input"]);

    expect(
      (await srv.api("POST", `/sessions/${sid}/prompt`, { prompt: `mcp subtask_list {}\nmcp subtask_get {"taskId":"${childId}"}\nmcp task_get {}` })).status,
    ).toBe(202);
    await waitFor(async () => (await mcpAnswers(srv, sid)).length === 4, "the parent's reads");
    const [, listed, got, own] = await mcpAnswers(srv, sid);
    expect(listed).toEqual([
      expect.objectContaining({
        id: childId,
        parentId: parent.id,
        outcome: expect.objectContaining({
          sessionId: created.session.id,
          agent: "scripted",
          state: "waiting_for_input",
          lastTurn: expect.objectContaining({ outcome: "completed" }),
        }),
      }),
    ]);
    expect(got).toMatchObject({ id: childId, brief: "write it", subtasks: [] });
    expect(got.changes).toHaveLength(1);
    expect(got.changes[0].ahead).toBe(1);
    expect(JSON.stringify(got)).not.toContain(srv.home);
    expect(own.subtasks).toEqual([{ id: childId, title: "Child", state: expect.any(String) }]);
    // The child's own session acts on the child; the parent is not in its scope.
    const childSession = await runSession(srv, childId, `mcp task_get {"taskId":"${parent.id}"}\nmcp task_get {}`);
    const [refused, mine] = await mcpAnswers(srv, childSession);
    expect(refused.error.code).toBe("mcp_forbidden");
    expect(mine).toMatchObject({ id: childId, parentId: parent.id });
  });

  it("MCP-3: past the count, depth and running-agent limits subtask_create is refused with subtask_limit and nothing is created; an unknown agent creates nothing", async () => {
    const srv = await perTest.start();
    const tokens = captureTokens(srv);
    const { task: root } = await briefTask(srv, "Root", "r");
    const sid = await runSession(srv, root.id, "say ready");
    const client = await shimClient(srv, sid, tokens.get(sid)![0]!);
    try {
      // Depth: root (0) → 1 → 2 → 3; a fourth level is refused.
      let parentId = root.id;
      for (const depth of [1, 2, 3]) {
        const r = await callTool(client, "subtask_create", { taskId: parentId, title: `Depth ${depth}` });
        expect(r.isError, JSON.stringify(r.json)).toBe(false);
        parentId = r.json.task.id;
      }
      const tooDeep = await callTool(client, "subtask_create", { taskId: parentId, title: "Depth 4" });
      expect(tooDeep).toMatchObject({ isError: true, json: { error: { code: "subtask_limit", details: { limit: "depth", value: 3 } } } });
      expect((await srv.api("GET", `/tasks?parentId=${parentId}`)).body).toEqual([]);

      // Count: the root has 1 child; 9 more fit, the 11th does not.
      for (let i = 2; i <= 10; i++) expect((await callTool(client, "subtask_create", { title: `Child ${i}` })).isError).toBe(false);
      const tooMany = await callTool(client, "subtask_create", { title: "Child 11" });
      expect(tooMany).toMatchObject({ isError: true, json: { error: { code: "subtask_limit", details: { limit: "count", value: 10 } } } });
      expect((await srv.api("GET", `/tasks?parentId=${root.id}`)).body).toHaveLength(10);

      // Running agents: under a fresh parent, 3 started subtasks fill the subtree; a 4th start is refused.
      const { task: other } = await briefTask(srv, "Starter", "s");
      const sid2 = await runSession(srv, other.id, "say ready");
      const c2 = await shimClient(srv, sid2, tokens.get(sid2)![0]!);
      try {
        for (let i = 1; i <= 3; i++) expect((await callTool(c2, "subtask_create", { title: `Runner ${i}`, prompt: "say hi" })).isError).toBe(false);
        const busy = await callTool(c2, "subtask_create", { title: "Runner 4", prompt: "say hi" });
        expect(busy).toMatchObject({ isError: true, json: { error: { code: "subtask_limit", details: { limit: "runningAgents", value: 3 } } } });
        const typo = await callTool(c2, "subtask_create", { title: "Typo", agent: "no-such-agent" });
        expect(typo).toMatchObject({ isError: true, json: { error: { code: "agent_unknown" } } });
        expect(((await srv.api("GET", `/tasks?parentId=${other.id}`)).body as { title: string }[]).map((t) => t.title)).toEqual([
          "Runner 1",
          "Runner 2",
          "Runner 3",
        ]);
      } finally {
        await c2.close();
      }
    } finally {
      await client.close();
    }
  });
});
