import { describe, expect, it } from "vitest";
import { ONE_DATABASE } from "../fixture/db.js";
import { repoAndTask } from "../fixture/scenario.js";
import { openEvents, serverPerTest, waitFor, waitForSession } from "../fixture/server.js";
import { applyWorkflow, runsOf, waitForRun, waitForTaskState } from "./helpers.js";

/** The reviewer loop: Review starts a reviewer; findings send the card back with the comments; a clean review asks for Done (guarded by the merge). */
const reviewerLoop = (repositoryId: string, reviewerScript: string) => `repositoryId: ${repositoryId}
steps:
  - id: review
    onEnter:
      - action: start_session
        agent: scripted
        prompt: ${JSON.stringify(reviewerScript)}
    on:
      completed: in_progress
      clean: done
  - id: in_progress
    onEnter:
      - action: send_comments
        prompt: "say fixed {{title}}"
    on:
      completed: review
  - id: done
    guard: merged_pull_request
`;

const FINDING = 'mcp comment_create {"path":"src/a.txt","line":2,"body":"Name this better"}';

describe.each(ONE_DATABASE)("WF-2 reviewer workflow (%s)", (kind) => {
  const perTest = serverPerTest(kind);

  it("WF-2 moving a card to Review starts the reviewer; its line comments reach the working session back in In Progress; a clean review stops short of Done until the merge", async () => {
    const srv = await perTest.start();
    const events = await openEvents(srv.url);
    try {
      const { repo, repository, task } = await repoAndTask(srv, { title: "Widget", files: { "src/a.txt": "one\ntwo\n" } });
      perTest.track(repo);
      await applyWorkflow(srv, "reviewer", reviewerLoop(repository.id, FINDING));
      // The person's own (working) session: under an automating workflow it does not move the card.
      const work = await srv.api("POST", `/tasks/${task.id}/sessions`, { prompt: "say working" });
      await waitForSession(srv.api, work.body.id, ["waiting_for_input"]);
      expect((await srv.api("GET", `/tasks/${task.id}`)).body.state).toBe("todo");

      expect((await srv.api("PATCH", `/tasks/${task.id}`, { state: "review" })).status).toBe(200);
      const review = await waitForRun(srv, task.id, "the reviewer run", (r) => r.action === "start_session" && r.state === "succeeded");
      expect(review).toMatchObject({ step: "review", cause: "enter", outcome: "turn completed → in_progress" });
      const comments = (await srv.api("GET", `/tasks/${task.id}/comments`)).body as {
        path: string;
        line: number;
        body: string;
        state: string;
        sessionId?: string;
      }[];
      expect(comments).toMatchObject([{ path: "src/a.txt", line: 2, body: "Name this better" }]);

      // Its end moves the card back; the comments go to the working session, then it is reviewed again.
      const sent = await waitForRun(srv, task.id, "the comments sent", (r) => r.action === "send_comments" && r.state === "succeeded");
      expect(sent).toMatchObject({ step: "in_progress", sessionId: work.body.id, outcome: "turn completed → review" });
      const msgs = (await srv.api("GET", `/sessions/${work.body.id}/messages`)).body as { role: string; text: string }[];
      expect(msgs.filter((m) => m.role === "user").at(-1)!.text).toContain("Name this better");
      expect(msgs.some((m) => m.role === "agent" && m.text === "fixed Widget")).toBe(true);
      expect(((await srv.api("GET", `/tasks/${task.id}/comments`)).body as { state: string }[]).map((c) => c.state)).toEqual(["sent"]);

      // The second review finds more (same script): the loop would go on; a new version of the workflow reviews clean.
      await waitForRun(
        srv,
        task.id,
        "the second review",
        (r, all) => r.action === "start_session" && all.filter((x) => x.action === "start_session").length === 2,
      );
      await waitForRun(
        srv,
        task.id,
        "the second comments sent",
        (r, all) => all.filter((x) => x.action === "send_comments" && x.state === "succeeded").length === 2,
      );
      await applyWorkflow(srv, "reviewer", reviewerLoop(repository.id, "say looks good"));
      const guarded = await waitForRun(srv, task.id, "the clean review's move to done", (r) => r.action === "move" && r.cause === "turn_clean");
      await waitFor(
        async () => ((await runsOf(srv, task.id)).find((r) => r.id === guarded.id)?.state === "failed" ? true : undefined),
        "the guard refusing done",
      );
      const refused = (await runsOf(srv, task.id)).find((r) => r.id === guarded.id)!;
      expect(refused.outcome).toMatch(/^workflow_guard: /);
      expect((await srv.api("GET", `/tasks/${task.id}`)).body.state).toBe("review");

      // Every run was announced as workflow.run frames.
      const frames = events.frames.filter((f) => f.type === "workflow.run" && f.data.taskId === task.id);
      expect(
        frames.some(
          (f) =>
            f.data.action === "start_session" &&
            f.data.step === "review" &&
            f.data.workflow === "reviewer" &&
            f.data.outcome === "turn completed → in_progress",
        ),
      ).toBe(true);

      // The person merges: the task is Done (a person's action, no guard).
      const merged = await srv.api("POST", `/tasks/${task.id}/merge`, {});
      expect(merged.status, JSON.stringify(merged.body)).toBe(200);
      await waitForTaskState(srv, task.id, "done");
    } finally {
      events.close();
    }
  });
});
