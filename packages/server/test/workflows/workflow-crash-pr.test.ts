import { describe, expect, it } from "vitest";
import { crashServers } from "../fixture/crash.js";
import { DATABASES } from "../fixture/db.js";
import { waitForSession } from "../fixture/server.js";
import { fakeGithubRemote, settledRuns } from "./helpers.js";

type Run = { action: string; state: string; outcome: string | null };

const PR = 'steps:\n  - id: review\n    onEnter:\n      - action: pr\n        title: "Grove: {{title}}"\n';

/**
 * WF-2.16 with the real `grove serve` and the fake GitHub API: the process dies (exit 137,
 * like kill -9) with the pr run claimed (`workflow.after_claim`), right after the provider
 * created the pull request and before Grove recorded it (`pr.after_create`), or after the
 * action and before its run was told (`workflow.after_pr`). The restarted server ends the run;
 * the provider has exactly one pull request.
 */
describe.each(DATABASES)("WF-2.16 kill -9 in the middle of a pr action (%s)", { timeout: 300_000 }, (kind) => {
  const t = crashServers(kind, { GROVE_PR_REFRESH_MS: "0" });

  for (const fault of ["workflow.after_claim", "pr.after_create", "workflow.after_pr"]) {
    it(`WF-2.16 pr: a crash at ${fault} → one pull request, the run succeeded`, async () => {
      const p = await fakeGithubRemote(t.cleanups);
      const w = await t.home();
      const first = await w.start(`${fault}:exit`);
      const repo = await first.api("POST", "/repositories", { url: p.web, provider: "github", credential: { token: p.token }, apiUrl: p.fake.apiUrl });
      expect(repo.status).toBe(201);
      expect((await first.api("PUT", "/workflows/pr", PR)).status).toBe(200);
      const task = (await first.api("POST", "/tasks", { title: "PR once", repositories: [{ repositoryId: repo.body.id }] })).body;
      const session = (await first.api("POST", `/tasks/${task.id}/sessions`, { prompt: "write f.txt F\ncommit add f" })).body;
      await waitForSession(first.api, session.id, ["waiting_for_input"], 60_000);
      await first.api("PATCH", `/tasks/${task.id}`, { state: "review" }).catch(() => undefined);
      expect((await first.server.exited).code).toBe(137);

      const second = await w.start();
      const runs = await settledRuns<Run>(second.api, task.id, "the pr run ended");
      expect(runs.map((r) => [r.action, r.state])).toEqual([["pr", "succeeded"]]);
      expect(runs[0]!.outcome).toMatch(/^(opened|updated) #1 at [0-9a-f]{12}$/);
      expect(p.fake.prs.map((x) => [x.number, x.title, x.state])).toEqual([[1, "Grove: PR once", "open"]]);
      expect(((await second.api("GET", `/tasks/${task.id}/pull-requests`)).body as { number: number }[]).map((x) => x.number)).toEqual([1]);
    });
  }
});
