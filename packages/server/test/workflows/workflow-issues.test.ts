import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ONE_DATABASE } from "../fixture/db.js";
import { makeRepo } from "../fixture/git.js";
import { startTestServer, waitFor, waitForSession, type TestServer } from "../fixture/server.js";
import { addRemote, makeRemoteRepo, remoteWorld, type RemoteWorld } from "../remote/helpers.js";
import { startFakeProvider, type FakeProvider } from "../review/fake-provider.js";
import { runsOf } from "./helpers.js";

const KEYS = { github: "acme/widget", gitlab: "grp/sub/widget" } as const;
const CASES = ONE_DATABASE.flatMap((db) => (["github", "gitlab"] as const).map((p) => [db, p] as const));
const ENV = { GROVE_PR_REFRESH_MS: "0" };

/**
 * WF-2 against the fake provider REST API (GitHub and GitLab shapes): an open issue with the
 * workflow's label becomes exactly one task (polls, a restart), linked back by a comment and
 * closed when the task's pull request merges.
 */
describe.each(CASES)("WF-2 labeled provider issues (%s, %s)", { timeout: 300_000 }, (kind, provider) => {
  let w: RemoteWorld;
  let fake: FakeProvider;
  let first: TestServer;

  beforeAll(async () => {
    w = await remoteWorld(kind, provider, { env: ENV });
    first = w.srv;
    makeRemoteRepo(w.root, KEYS[provider], { "README.md": "# widget\n" });
    fake = await startFakeProvider(provider, w.token, `${w.http.url}/${KEYS[provider]}`);
  }, 90_000);
  afterAll(async () => {
    await fake?.close();
    await w?.srv.stop();
    if (w) w.srv = first;
    await w?.close();
  });

  it("WF-1 a bad issues trigger is 400 invalid_workflow with its line, nothing stored", async () => {
    const local = await makeRepo({ name: "issues-local" });
    try {
      const localId = (await w.srv.api("POST", "/repositories", { path: local.path })).body.id as string;
      const bad: { what: string; yaml: string; line: number; message: RegExp }[] = [
        {
          what: "global without a repository",
          yaml: "steps:\n  - id: todo\ntriggers:\n  issues:\n    label: grove\n",
          line: 4,
          message: /names the repository whose issues it polls/,
        },
        {
          what: "a local repository",
          yaml: `repositoryId: ${localId}\nsteps:\n  - id: todo\ntriggers:\n  issues:\n    label: grove\n`,
          line: 1,
          message: /has no provider issues API/,
        },
        {
          what: "poll interval 0",
          yaml: "steps:\n  - id: todo\ntriggers:\n  issues:\n    label: grove\n    pollSeconds: 0\n    repositoryId: repo_x\n",
          line: 6,
          message: /pollSeconds/,
        },
        { what: "no label", yaml: "steps:\n  - id: todo\ntriggers:\n  issues:\n    step: todo\n", line: 5, message: /label/ },
        {
          what: "unknown step",
          yaml: "steps:\n  - id: todo\ntriggers:\n  issues:\n    label: grove\n    step: later\n    repositoryId: repo_x\n",
          line: 6,
          message: /unknown step "later"/,
        },
      ];
      for (const b of bad) {
        const r = await w.srv.api("PUT", "/workflows/issues-bad", b.yaml);
        expect(r.status, b.what).toBe(400);
        expect(r.body.error.code, b.what).toBe("invalid_workflow");
        expect(r.body.error.details.line, `${b.what}: ${r.body.error.message}`).toBe(b.line);
        expect(r.body.error.message, b.what).toMatch(b.message);
      }
      expect((await w.srv.api("GET", "/workflows/issues-bad")).status).toBe(404);
    } finally {
      await local.cleanup();
    }
  });

  it("WF-2 an open issue with the label → one task with its title and body, a comment naming it; more polls and a restart add none; the merge closes it", async () => {
    const repo = await addRemote(w.srv, { url: `${w.http.url}/${KEYS[provider]}`, provider, credential: { token: w.token }, apiUrl: fake.apiUrl });
    fake.issues = [
      { number: 7, title: "Crash on an empty config", body: "Run it with an empty grove.yaml.", labels: ["bug", "grove"], state: "open", comments: [] },
      { number: 8, title: "Not for the agents", body: "", labels: ["bug"], state: "open", comments: [] },
    ];
    const yaml = `repositoryId: ${repo.id}\nsteps:\n  - id: todo\ntriggers:\n  issues:\n    label: grove\n    pollSeconds: 1\n`;
    expect((await w.srv.api("PUT", "/workflows/triage", yaml)).status).toBe(200);
    const tasks = async () => (await w.srv.api("GET", "/tasks")).body as { id: string; title: string; description: string }[];
    const polls = () => fake.seen.filter((s) => s.method === "GET" && /\/issues$/.test(s.path) && s.status === 200).length;
    const morePolls = async (n: number) => {
      const from = polls();
      await waitFor(() => polls() >= from + n || undefined, `${n} more polls of the issues`, 60_000);
    };

    const task = await waitFor(async () => (await tasks()).find((t) => t.title === "Crash on an empty config"), "the issue's task", 60_000);
    const issueUrl = provider === "github" ? `${w.http.url}/${KEYS[provider]}/issues/7` : `${w.http.url}/${KEYS[provider]}/-/issues/7`;
    expect(task.description).toBe(`Run it with an empty grove.yaml.\n\n${issueUrl}`);
    await waitFor(() => fake.issues[0]!.comments.length > 0 || undefined, "the comment on the issue");
    expect(fake.issues[0]!.comments).toEqual([`Grove task ${task.id} was created for this issue: Crash on an empty config`]);
    await waitFor(async () => (await runsOf(w.srv, task.id)).every((r) => r.state === "succeeded") || undefined, "the issue's runs ended");
    expect((await runsOf(w.srv, task.id)).map((r) => [r.action, r.cause, r.state])).toEqual([
      ["create_task", "issue", "succeeded"],
      ["issue_comment", "issue", "succeeded"],
    ]);

    await morePolls(2);
    expect((await tasks()).map((t) => t.title)).toEqual(["Crash on an empty config"]);
    // A restart polls again: the key (repository, issue) is taken.
    await w.srv.stop();
    w.srv = await startTestServer(kind, { home: first.home, databaseUrl: first.databaseUrl }, { GROVE_REFRESH_TIMEOUT_MS: "30000", ...ENV });
    await morePolls(2);
    expect((await tasks()).map((t) => t.id)).toEqual([task.id]);
    expect(fake.issues[0]!.comments).toHaveLength(1);
    expect(fake.issues.map((i) => i.state)).toEqual(["open", "open"]);

    // The task's work lands through its pull request; the merge closes the issue.
    const s = await w.srv.api("POST", `/tasks/${task.id}/sessions`, { prompt: "write f.txt F\ncommit task work" });
    expect(s.status).toBe(201);
    await waitForSession(w.srv.api, s.body.id, ["waiting_for_input"], 60_000);
    expect((await w.srv.api("POST", `/tasks/${task.id}/pull-requests`, { title: "Fix the crash" })).status).toBe(201);
    fake.prs[0]!.state = "merged";
    expect((await w.srv.api("POST", `/tasks/${task.id}/pull-requests/refresh`)).body[0].state).toBe("merged");
    await waitFor(() => fake.issues[0]!.state === "closed" || undefined, "the issue closed");
    await waitFor(
      async () => (await runsOf(w.srv, task.id)).some((r) => r.action === "issue_close" && r.state === "succeeded") || undefined,
      "the close run ended",
    );
    expect(fake.issues[1]!.state).toBe("open");
    expect(fake.seen.every((q) => q.authorized)).toBe(true);
  });
});
