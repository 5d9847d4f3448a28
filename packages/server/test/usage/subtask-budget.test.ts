import { describe, expect, it } from "vitest";
import { DATABASES } from "../fixture/db.js";
import { serverPerTest, waitForSession } from "../fixture/server.js";
import { briefTask, mcpAnswers, runSession } from "../mcp/helpers.js";

// USE-2: a subtask's spend counts against its parent's budget (inherited), `GET /usage?taskId=`
// includes subtasks, and an agent's own MCP calls cannot change a budget.
describe.each(DATABASES)("USE-2 budgets and subtasks (%s)", (kind) => {
  const perTest = serverPerTest(kind);

  it("USE-2: a child's spend reaches the parent's budget; prompts of parent and child are refused naming the parent's budget; the roll-up of the parent includes the child; MCP cannot raise it", async () => {
    const srv = await perTest.start();
    const { task: parent } = await briefTask(srv, "Budgeted parent", "split me");
    expect((await srv.api("PUT", `/tasks/${parent.id}/budget`, { cost: 1 })).status).toBe(200);
    const sid = await runSession(srv, parent.id, 'usage 10 1 0.3\nmcp subtask_create {"title":"Spender","agent":"scripted","prompt":"usage 100 10 0.8"}');
    const [created] = await mcpAnswers(srv, sid);
    const childId = created.task.id as string;
    expect(created.task.parentId).toBe(parent.id);
    await waitForSession(srv.api, created.session.id, ["waiting_for_input"]);

    // 0.3 (parent) + 0.8 (child) ≥ 1: both are refused, by the parent's budget.
    for (const [session, taskId] of [
      [sid, parent.id],
      [created.session.id as string, childId],
    ] as const) {
      const r = await srv.api("POST", `/sessions/${session}/prompt`, { prompt: "say more" });
      expect(r.status).toBe(409);
      expect(r.body.error).toMatchObject({
        code: "budget_exceeded",
        details: { taskId, scope: "task", budgetTaskId: parent.id, limit: { cost: 1 }, used: { cost: 1.1 } },
      });
    }
    const rows = (await srv.api("GET", `/usage?groupBy=task&taskId=${parent.id}`)).body.rows as { key: string; cost: number }[];
    expect(rows.map((r) => [r.key, r.cost]).sort()).toEqual(
      [
        [parent.id, 0.3],
        [childId, 0.8],
      ].sort(),
    );
    expect((await srv.api("GET", `/usage?groupBy=task&taskId=${childId}`)).body.rows.map((r: { key: string }) => r.key)).toEqual([childId]);

    // The agent cannot raise it: task_update has no budget, and the HTTP route is the person's only.
    expect((await srv.api("PUT", `/tasks/${parent.id}/budget`, { continueOnce: true })).status).toBe(200);
    const agentTry = await srv.api("POST", `/sessions/${sid}/prompt`, { prompt: 'mcp task_update {"budget":{"cost":100}}' });
    expect(agentTry.status).toBe(202);
    await waitForSession(srv.api, sid, ["waiting_for_input"]);
    const answers = await mcpAnswers(srv, sid);
    expect(answers.at(-1)).toHaveProperty("error");
    expect((await srv.api("GET", `/tasks/${parent.id}`)).body.budget).toEqual({ cost: 1 });
    expect((await srv.api("POST", `/sessions/${sid}/prompt`, { prompt: "say more" })).body.error.code).toBe("budget_exceeded");
  });
});
