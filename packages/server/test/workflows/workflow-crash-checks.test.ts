import { describe, expect, it } from "vitest";
import { crashServers } from "../fixture/crash.js";
import { DATABASES } from "../fixture/db.js";
import { waitFor, waitForSession } from "../fixture/server.js";
import { fakeGithubRemote } from "./helpers.js";

type Run = { action: string; cause: string; state: string; outcome: string | null; sessionId: string | null };

const CI = "steps:\n  - id: review\ntriggers:\n  checksFailed:\n    maxRounds: 3\n";

/**
 * WF-2 with the real `grove serve` and the fake GitHub API: the process dies (exit 137, like
 * kill -9) in the middle of a send_checks run: after its target session was recorded and
 * before the failure was sent (`workflow.after_plan`), or right after it was sent
 * (`workflow.after_prompt`). The restarted server sends the failing check exactly once.
 */
describe.each(DATABASES)("WF-2 kill -9 in the middle of send_checks (%s)", { timeout: 300_000 }, (kind) => {
  const crash = crashServers(kind, { GROVE_PR_REFRESH_MS: "0" });

  for (const fault of ["workflow.after_plan", "workflow.after_prompt"]) {
    it(`WF-2 send_checks: a crash at ${fault} → the failing check reaches the agent once`, async () => {
      const p = await fakeGithubRemote(crash.cleanups);
      const { start } = await crash.home();
      const first = await start(`${fault}:exit`);
      const repo = await first.api("POST", "/repositories", { url: p.web, provider: "github", credential: { token: p.token }, apiUrl: p.fake.apiUrl });
      expect(repo.status).toBe(201);
      expect((await first.api("PUT", "/workflows/ci", CI)).status).toBe(200);
      const task = (await first.api("POST", "/tasks", { title: "CI task", repositories: [{ repositoryId: repo.body.id }] })).body;
      const session = (await first.api("POST", `/tasks/${task.id}/sessions`, { prompt: "write f.txt F\ncommit task work" })).body;
      await waitForSession(first.api, session.id, ["waiting_for_input"], 60_000);
      expect((await first.api("POST", `/tasks/${task.id}/pull-requests`, { title: "Add f" })).status).toBe(201);
      p.fake.prs[0]!.sha = "1".repeat(40);
      p.fake.checks = [{ name: "lint", state: "failure", summary: "lint: 2 errors in f.txt" }];
      await first.api("POST", `/tasks/${task.id}/pull-requests/refresh`).catch(() => undefined);
      expect((await first.server.exited).code).toBe(137);

      const second = await start();
      const runs = await waitFor(
        async () => {
          const all = ((await second.api("GET", `/tasks/${task.id}/workflow-runs`)).body as Run[]).filter((r) => r.cause === "checks_failed");
          return all.length > 0 && all.every((r) => r.state !== "pending" && r.state !== "running") ? all : undefined;
        },
        "the send_checks run ended",
        120_000,
      );
      expect(runs).toHaveLength(1);
      const s = await waitForSession(second.api, session.id, ["waiting_for_input"], 60_000);
      const sent = ((await second.api("GET", `/sessions/${session.id}/messages`)).body as { role: string; text: string }[]).filter(
        (m) => m.role === "user" && m.text.includes("Failed check: lint"),
      );
      if (runs[0]!.state === "succeeded") {
        // The failure's turn ran to its end: one prompt carried it.
        expect(runs[0]!.outcome).toBe("turn completed");
        expect(sent).toHaveLength(1);
      } else {
        // The restart cut the turn the prompt started; nothing was sent again.
        expect(fault).toBe("workflow.after_prompt");
        expect([runs[0]!.state, runs[0]!.outcome, s.lastTurn.outcome]).toEqual(["cancelled", "the turn was cancelled", "interrupted"]);
        expect(sent.length).toBeLessThanOrEqual(1);
      }
    });
  }
});
