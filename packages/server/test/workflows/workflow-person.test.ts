import { describe, expect, it } from "vitest";
import { ONE_DATABASE } from "../fixture/db.js";
import { repoAndTask } from "../fixture/scenario.js";
import { makeRepo } from "../fixture/git.js";
import { serverPerTest, waitForSession } from "../fixture/server.js";
import { applyWorkflow, runsOf, waitForRun } from "./helpers.js";

const SLOW_REVIEW = `steps:
  - id: review
    onEnter:
      - action: start_session
        agent: scripted
        prompt: "sleep 60000"
    on:
      completed: done
  - id: in_progress
    wipLimit: 1
`;

describe.each(ONE_DATABASE)("WF-2 a person wins over automation (%s)", (kind) => {
  const perTest = serverPerTest(kind);

  it("WF-2 a person's move cancels the run in progress and its turn; WIP limit → 409; stop switches per task and per workflow queue nothing", async () => {
    const srv = await perTest.start();
    const a = await repoAndTask(srv, { title: "A" });
    perTest.track(a.repo);
    const another = async (title: string) => ({
      task: (await srv.api("POST", "/tasks", { title, repositories: [{ repositoryId: a.repository.id }] })).body as { id: string },
    });
    const b = await another("B");
    await applyWorkflow(srv, "slow", SLOW_REVIEW);

    expect((await srv.api("PATCH", `/tasks/${a.task.id}`, { state: "review" })).status).toBe(200);
    const running = await waitForRun(
      srv,
      a.task.id,
      "the reviewer running",
      (r) => r.action === "start_session" && r.state === "running" && r.sessionId !== null,
    );
    await waitForSession(srv.api, running.sessionId!, ["running"]);
    // The person takes over: the run is cancelled and so is the reviewer's turn.
    expect((await srv.api("PATCH", `/tasks/${a.task.id}`, { state: "in_progress" })).status).toBe(200);
    const cancelled = (await runsOf(srv, a.task.id)).find((r) => r.id === running.id)!;
    expect(cancelled).toMatchObject({ state: "cancelled", outcome: "cancelled: a person moved the task" });
    const turn = await waitForSession(srv.api, running.sessionId!, ["waiting_for_input"]);
    expect(turn.lastTurn.outcome).toBe("cancelled");
    expect((await srv.api("GET", `/tasks/${a.task.id}`)).body.state).toBe("in_progress");

    // In Progress holds one task: B cannot join it.
    const full = await srv.api("PATCH", `/tasks/${b.task.id}`, { state: "in_progress" });
    expect(full.status).toBe(409);
    expect(full.body.error).toMatchObject({ code: "wip_limit_reached", details: { step: "in_progress", limit: 1, count: 1, workflow: "slow" } });
    expect((await srv.api("GET", `/tasks/${b.task.id}`)).body.state).toBe("todo");

    // Stopped for B: entering Review queues nothing.
    expect((await srv.api("PUT", `/tasks/${b.task.id}/workflow`, { stopped: true })).body).toEqual({ taskId: b.task.id, stopped: true });
    expect((await srv.api("PATCH", `/tasks/${b.task.id}`, { state: "review" })).status).toBe(200);
    // Stopped workflow: A back to Review queues nothing either.
    expect((await srv.api("PATCH", "/workflows/slow", { stopped: true })).body.stopped).toBe(true);
    expect((await srv.api("PATCH", `/tasks/${a.task.id}`, { state: "review" })).status).toBe(200);
    // A marker: a task of another repository under its own active workflow. The engine handles
    // frames in order, so once C's run exists, A's and B's moves were handled.
    const other = perTest.track(await makeRepo({ name: "other" }));
    const otherRepo = (await srv.api("POST", "/repositories", { path: other.path })).body as { id: string };
    await applyWorkflow(srv, "marker", `repositoryId: ${otherRepo.id}\n${SLOW_REVIEW}`);
    const c = { task: (await srv.api("POST", "/tasks", { title: "C", repositories: [{ repositoryId: otherRepo.id }] })).body as { id: string } };
    expect((await srv.api("PATCH", `/tasks/${c.task.id}`, { state: "review" })).status).toBe(200);
    await waitForRun(srv, c.task.id, "C's reviewer", (r) => r.action === "start_session");
    expect((await runsOf(srv, b.task.id)).length).toBe(0);
    expect((await runsOf(srv, a.task.id)).filter((r) => r.action === "start_session")).toHaveLength(1);
  });
});
