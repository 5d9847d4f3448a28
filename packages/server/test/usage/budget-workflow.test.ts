import { describe, expect, it } from "vitest";
import { ONE_DATABASE } from "../fixture/db.js";
import { repoAndTask } from "../fixture/scenario.js";
import { serverPerTest, waitForSession } from "../fixture/server.js";
import { applyWorkflow, runsOf, waitForRun } from "../workflows/helpers.js";

// USE-2 with WF-2: past a budget, an automation's next action is refused with `budget_exceeded`
// — recorded on the task's run, no session created, not retried — until the person acts.
const REVIEW = `steps:
  - id: review
    onEnter:
      - action: start_session
        agent: scripted
        prompt: "say reviewed"
`;

describe.each(ONE_DATABASE)("USE-2 WF-2 a spent budget refuses the workflow's next action (%s)", (kind) => {
  const perTest = serverPerTest(kind);

  it("USE-2 WF-2: over budget, entering Review records the reviewer's start as refused (budget_exceeded), starts no session; after continue once the next entry runs it", async () => {
    const srv = await perTest.start();
    const { task, repo } = await repoAndTask(srv, { title: "Spent" });
    perTest.track(repo);
    await applyWorkflow(srv, "reviewing", REVIEW);
    expect((await srv.api("PUT", `/tasks/${task.id}/budget`, { cost: 1 })).status).toBe(200);
    const s = await srv.api("POST", `/tasks/${task.id}/sessions`, { prompt: "usage 10 1 1.2" });
    await waitForSession(srv.api, s.body.id, ["waiting_for_input"]);
    const sessions = async () => ((await srv.api("GET", `/tasks/${task.id}/sessions`)).body as unknown[]).length;
    expect(await sessions()).toBe(1);

    expect((await srv.api("PATCH", `/tasks/${task.id}`, { state: "review" })).status).toBe(200);
    const refused = await waitForRun(srv, task.id, "the reviewer's start refused", (r) => r.action === "start_session" && r.state === "failed");
    expect(refused.outcome).toMatch(/^budget_exceeded: /);
    expect(await sessions()).toBe(1);
    expect((await runsOf(srv, task.id)).filter((r) => r.action === "start_session")).toHaveLength(1);

    // The person lets one more turn run; the next entry into Review starts the reviewer.
    expect((await srv.api("PUT", `/tasks/${task.id}/budget`, { continueOnce: true })).status).toBe(200);
    expect((await srv.api("PATCH", `/tasks/${task.id}`, { state: "in_progress" })).status).toBe(200);
    expect((await srv.api("PATCH", `/tasks/${task.id}`, { state: "review" })).status).toBe(200);
    const started = await waitForRun(
      srv,
      task.id,
      "the reviewer started",
      (r) => r.action === "start_session" && r.id !== refused.id && r.sessionId !== null && r.state !== "failed",
    );
    await waitForSession(srv.api, started.sessionId!, ["waiting_for_input"]);
    expect(await sessions()).toBe(2);
  });

  it("USE-2 WF-2: a workflow's budget bounds what the sessions it starts spend together: 80 % and 100 % items, the next start refused (scope workflow), the person's own session not; a new version with a raised budget runs again", async () => {
    const srv = await perTest.start();
    const a = await repoAndTask(srv, { title: "First" });
    perTest.track(a.repo);
    const task = async (title: string) =>
      (await srv.api("POST", "/tasks", { title, repositories: [{ repositoryId: a.repository.id }] })).body as { id: string };
    const budgeted = (cost: number) =>
      `budget:\n  cost: ${cost}\nsteps:\n  - id: review\n    onEnter:\n      - action: start_session\n        agent: scripted\n        prompt: "usage 10 1 0.6"\n`;
    // A budget that names nothing, or a negative one, is refused with its line.
    for (const [yaml, line] of [
      [`steps:\n  - id: review\nbudget: {}\n`, 3],
      [budgeted(-1), 2],
    ] as const) {
      const bad = await srv.api("PUT", "/workflows/metered", yaml);
      expect(bad.status, yaml).toBe(400);
      expect(bad.body.error).toMatchObject({ code: "invalid_workflow", details: { line } });
    }
    await applyWorkflow(srv, "metered", budgeted(0.7));
    const items = async () => ((await srv.api("GET", "/inbox")).body as { kind: string; title: string; state: string }[]).filter((i) => i.kind === "budget");

    // Two reviewers, 0.6 each: the first crosses 80 % of 0.7, the second 100 %.
    for (const [i, t] of [a.task, await task("Second")].entries()) {
      expect((await srv.api("PATCH", `/tasks/${t.id}`, { state: "review" })).status).toBe(200);
      const run = await waitForRun(srv, t.id, `reviewer ${i + 1}`, (r) => r.action === "start_session" && r.sessionId !== null && r.state !== "running");
      expect(run.state, JSON.stringify(run)).toBe("succeeded");
    }
    const titles = (await items()).map((i) => i.title);
    expect(titles).toEqual(
      expect.arrayContaining(["First: 80 % of workflow metered's budget used", "Second: workflow metered's budget is spent; new prompts wait for you"]),
    );

    // A third task: its reviewer's start is refused for the workflow; its person's session is not.
    const third = await task("Third");
    expect((await srv.api("PATCH", `/tasks/${third.id}`, { state: "review" })).status).toBe(200);
    const refused = await waitForRun(srv, third.id, "the third reviewer refused", (r) => r.action === "start_session" && r.state === "failed");
    expect(refused.outcome).toMatch(/^budget_exceeded: .*the budget of workflow metered/);
    expect(((await srv.api("GET", `/tasks/${third.id}/sessions`)).body as unknown[]).length).toBe(0);
    const own = await srv.api("POST", `/tasks/${third.id}/sessions`, { prompt: "say mine" });
    expect(own.status).toBe(201);
    await waitForSession(srv.api, own.body.id, ["waiting_for_input"]);

    // A new version raises the budget: the next entry starts the reviewer.
    await applyWorkflow(srv, "metered", budgeted(5));
    expect((await srv.api("PATCH", `/tasks/${third.id}`, { state: "in_progress" })).status).toBe(200);
    expect((await srv.api("PATCH", `/tasks/${third.id}`, { state: "review" })).status).toBe(200);
    const ran = await waitForRun(
      srv,
      third.id,
      "the third reviewer after the raise",
      (r) => r.action === "start_session" && r.id !== refused.id && r.sessionId !== null && r.state !== "running",
    );
    expect(ran.state).toBe("succeeded");
  });
});
