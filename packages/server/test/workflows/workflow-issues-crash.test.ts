import { describe, expect, it } from "vitest";
import { inProcessRunner, sharedDatabase, type Cleanups } from "../cluster/helpers.js";
import { crashServers, type Api } from "../fixture/crash.js";
import { DATABASES } from "../fixture/db.js";
import { waitFor } from "../fixture/server.js";
import type { FakeProvider } from "../review/fake-provider.js";
import { fakeGithubRemote } from "./helpers.js";

type Run = { action: string; state: string; outcome: string | null };

/** The remote with one issue (#7) labeled `grove`. */
async function provider(cleanups: Cleanups): Promise<{ web: string; token: string; fake: FakeProvider }> {
  const p = await fakeGithubRemote(cleanups);
  p.fake.issues = [{ number: 7, title: "Crash on an empty config", body: "Run it with an empty grove.yaml.", labels: ["grove"], state: "open", comments: [] }];
  return p;
}

async function registerAndApply(api: Api, p: { web: string; token: string; fake: FakeProvider }): Promise<void> {
  const repo = await api("POST", "/repositories", { url: p.web, provider: "github", credential: { token: p.token }, apiUrl: p.fake.apiUrl });
  expect(repo.status).toBe(201);
  await api(
    "PUT",
    "/workflows/triage",
    `repositoryId: ${repo.body.id}\nsteps:\n  - id: todo\ntriggers:\n  issues:\n    label: grove\n    pollSeconds: 1\n`,
  ).catch(() => undefined);
}

/**
 * WF-2 with the real `grove serve`: the process dies (exit 137, like kill -9) right after the
 * link-back comment was posted and before its run was marked done; the restarted server ends
 * the run without commenting again. And two runners polling the same issues create one task.
 */
describe.each(DATABASES)("WF-2 labeled issues exactly once (%s)", { timeout: 240_000 }, (kind) => {
  const crash = crashServers(kind, { GROVE_PR_REFRESH_MS: "0" });
  const cleanups: Cleanups = crash.cleanups;

  it("WF-2 a crash at workflow.after_issue_comment → the restarted server ends the run; one task, one comment", async () => {
    const p = await provider(cleanups);
    const { start } = await crash.home();
    const first = await start("workflow.after_issue_comment:exit");
    await registerAndApply(first.api, p);
    expect((await first.server.exited).code).toBe(137);
    expect(p.fake.issues[0]!.comments).toHaveLength(1);

    const second = await start();
    const tasks = (await second.api("GET", "/tasks")).body as { id: string; title: string }[];
    expect(tasks.map((t) => t.title)).toEqual(["Crash on an empty config"]);
    const runs = await waitFor(async () => {
      const all = (await second.api("GET", `/tasks/${tasks[0]!.id}/workflow-runs`)).body as Run[];
      return all.every((r) => r.state === "succeeded") ? all : undefined;
    }, "the comment run ended");
    expect(runs.map((r) => [r.action, r.state, r.outcome])).toEqual([
      ["create_task", "succeeded", `created task ${tasks[0]!.id}`],
      ["issue_comment", "succeeded", `issue #7 already names task ${tasks[0]!.id}`],
    ]);
    expect(p.fake.issues[0]!.comments).toEqual([`Grove task ${tasks[0]!.id} was created for this issue: Crash on an empty config`]);
  });

  // Two runners share one database only on PostgreSQL: declared there alone, never a skipped test on SQLite.
  if (kind === "postgres")
    it("WF-2 two runners poll the same labeled issue: one task, one comment", async () => {
      const p = await provider(cleanups);
      const { databaseUrl } = await sharedDatabase(cleanups);
      const a = await inProcessRunner(cleanups, databaseUrl, "runner-a", { GROVE_PR_REFRESH_MS: "0" });
      await registerAndApply(a.api, p);
      const b = await inProcessRunner(cleanups, databaseUrl, "runner-b", { GROVE_PR_REFRESH_MS: "0" });
      // Each runner polls every second: wait until both have polled several times since B started.
      const pollsOf = () => p.fake.seen.filter((s) => s.method === "GET" && /\/issues$/.test(s.path)).length;
      const from = pollsOf();
      await waitFor(() => pollsOf() >= from + 6 || undefined, "both runners polled", 60_000);
      // The comment run goes through a runner's serial run queue, behind whatever that engine does
      // first: a generous bound on a busy machine, and the runs' own states if it never comes.
      await waitFor(() => p.fake.issues[0]!.comments.length > 0 || undefined, "the comment", 90_000).catch(async (e: unknown) => {
        const runs = await Promise.all(
          ((await a.api("GET", "/tasks")).body as { id: string }[]).map(async (t) => (await a.api("GET", `/tasks/${t.id}/workflow-runs`)).body),
        );
        throw new Error(`${String(e)}; workflow runs: ${JSON.stringify(runs)}`);
      });
      const tasks = (await b.api("GET", "/tasks")).body as { id: string }[];
      expect(tasks).toHaveLength(1);
      expect(p.fake.issues[0]!.comments).toEqual([`Grove task ${tasks[0]!.id} was created for this issue: Crash on an empty config`]);
    });
});
