import { describe, expect, it } from "vitest";
import { crashServers } from "../fixture/crash.js";
import { DATABASES } from "../fixture/db.js";
import { makeRepo } from "../fixture/git.js";
import { waitFor, waitForSession } from "../fixture/server.js";

type Run = { action: string; state: string; outcome: string | null; sessionId: string | null };

/** The prompt's turn outlasts the crash (a sleep), so the restart always finds it cut. */
const FIX = 'steps:\n  - id: in_progress\n    onEnter:\n      - action: send_comments\n        prompt: "sleep 20000"\n';

/**
 * WF-2 with the real `grove serve`: the process dies (exit 137, like kill -9) right after the
 * comments' prompt went to the working session, before the run heard of it. The restarted
 * server must not prompt again: the run ends with the turn the crash cut, and no second turn runs.
 */
describe.each(DATABASES)("WF-2 kill -9 after a workflow prompt went out (%s)", { timeout: 240_000 }, (kind) => {
  const crash = crashServers(kind);

  // comments.after_prompt: the comments are still open (not yet marked sent) when the process dies.
  for (const fault of ["comments.after_prompt", "workflow.after_prompt"]) {
    it(`WF-2 send_comments: a crash at ${fault} → the restarted server sends nothing twice`, async () => {
      const { start } = await crash.home();
      const repo = await makeRepo({ name: `crash-${fault.replace(/\W/g, "-")}`, files: { "README.md": "# r\nline two\n" } });
      crash.cleanups.push(repo.cleanup);
      const first = await start(`${fault}:exit`);
      const r = await first.api("POST", "/repositories", { path: repo.path });
      expect((await first.api("PUT", "/workflows/fixer", FIX)).status).toBe(200);
      const task = (await first.api("POST", "/tasks", { title: "Fix it", repositories: [{ repositoryId: r.body.id }] })).body;
      const session = (await first.api("POST", `/tasks/${task.id}/sessions`, {})).body;
      await waitForSession(first.api, session.id, ["waiting_for_input"], 60_000);
      expect((await first.api("POST", `/tasks/${task.id}/comments`, { repositoryId: r.body.id, path: "README.md", line: 2, body: "say more" })).status).toBe(
        201,
      );
      await first.api("PATCH", `/tasks/${task.id}`, { state: "in_progress" }).catch(() => undefined);
      expect((await first.server.exited).code).toBe(137);

      const second = await start();
      const runs = await waitFor(
        async () => {
          const all = (await second.api("GET", `/tasks/${task.id}/workflow-runs`)).body as Run[];
          return all.length > 0 && all.every((x) => x.state !== "pending" && x.state !== "running") ? all : undefined;
        },
        "the send_comments run ended",
        120_000,
      );
      // The run waited for the turn its prompt started; the restart cut that turn.
      expect(runs.map((x) => [x.action, x.state, x.outcome, x.sessionId])).toEqual([["send_comments", "cancelled", "the turn was cancelled", session.id]]);
      const s = (await second.api("GET", `/sessions/${session.id}`)).body;
      expect(s.lastTurn.outcome).toBe("interrupted");
      expect(s.state).not.toBe("running");
      const prompts = ((await second.api("GET", `/sessions/${session.id}/messages`)).body as { role: string; text: string }[]).filter(
        (m) => m.role === "user" && m.text.includes("Review comments"),
      );
      expect(prompts.length).toBeLessThanOrEqual(1);
    });
  }
});
