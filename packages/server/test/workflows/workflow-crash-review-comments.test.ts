import { describe, expect, it } from "vitest";
import { crashServers } from "../fixture/crash.js";
import { DATABASES } from "../fixture/db.js";
import { waitForSession } from "../fixture/server.js";
import { fakeGithubRemote, settledRuns } from "./helpers.js";

type Run = { action: string; cause: string; state: string; outcome: string | null; sessionId: string | null };

const COMMENTS = "steps:\n  - id: review\ntriggers:\n  reviewComments:\n    pollSeconds: 3600\n";

/**
 * WF-2.22 with the real `grove serve` and the fake GitHub API: the process dies (exit 137, like
 * kill -9) while a review comment goes to the agent: after its target session was recorded and
 * before the prompt (`workflow.after_plan`), or right after the prompt (`workflow.after_prompt`).
 * The restarted server polls again and sends the comment at most once, never twice.
 */
describe.each(DATABASES)("WF-2.22 kill -9 while a review comment goes to the agent (%s)", { timeout: 300_000 }, (kind) => {
  const crash = crashServers(kind, { GROVE_PR_REFRESH_MS: "0" });

  for (const fault of ["workflow.after_plan", "workflow.after_prompt"]) {
    it(`WF-2.22 a crash at ${fault} → the comment is sent once, never twice; one run`, async () => {
      const p = await fakeGithubRemote(crash.cleanups);
      const { start } = await crash.home();
      const first = await start(`${fault}:exit`);
      const repo = await first.api("POST", "/repositories", { url: p.web, provider: "github", credential: { token: p.token }, apiUrl: p.fake.apiUrl });
      expect(repo.status).toBe(201);
      const task = (await first.api("POST", "/tasks", { title: "Comment task", repositories: [{ repositoryId: repo.body.id }] })).body;
      const session = (await first.api("POST", `/tasks/${task.id}/sessions`, { prompt: "write f.txt F\ncommit task work" })).body;
      await waitForSession(first.api, session.id, ["waiting_for_input"], 60_000);
      expect((await first.api("POST", `/tasks/${task.id}/pull-requests`, { title: "Add f" })).status).toBe(201);
      p.fake.comments = [{ id: 42, path: "f.txt", line: 1, body: "please rename", resolved: false }];
      // Storing the workflow polls at once: the comment's run starts and the process dies in it.
      await first.api("PUT", "/workflows/comments", COMMENTS).catch(() => undefined);
      expect((await first.server.exited).code).toBe(137);

      const second = await start();
      const runs = (await settledRuns<Run>(second.api, task.id, "the comment's run ended")).filter((r) => r.cause === "review_comment");
      expect(runs).toHaveLength(1);
      const s = await waitForSession(second.api, session.id, ["waiting_for_input"], 60_000);
      const sent = ((await second.api("GET", `/sessions/${session.id}/messages`)).body as { role: string; text: string }[]).filter(
        (m) => m.role === "user" && m.text === "Review comment on f.txt line 1 by reviewer: please rename",
      );
      if (fault === "workflow.after_plan") {
        // Nothing went out before the crash: the redo sent it, once, and its turn ended the run.
        expect([runs[0]!.state, runs[0]!.outcome]).toEqual(["succeeded", "turn completed"]);
        expect(sent).toHaveLength(1);
      } else {
        // The prompt went out before the crash (its record may have died with the process); the
        // restart cut that turn, and the run ended with it instead of sending again.
        expect(sent.length).toBeLessThanOrEqual(1);
        expect([runs[0]!.state, runs[0]!.outcome, s.lastTurn.outcome]).toEqual(["cancelled", "the turn was cancelled", "interrupted"]);
      }
    });
  }
});
