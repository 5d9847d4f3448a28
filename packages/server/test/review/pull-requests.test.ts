import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { DATABASES } from "../fixture/db.js";
import { gitSync } from "../fixture/git.js";
import { openEvents, waitFor, waitForSession } from "../fixture/server.js";
import { addRemote, launch, makeRemoteRepo, remoteWorld, type RemoteWorld } from "../remote/helpers.js";
import { startFakeProvider, type FakeKind, type FakeProvider } from "./fake-provider.js";
import { agentText } from "./helpers.js";

const KEYS: Record<FakeKind, string> = { github: "acme/widget", gitlab: "grp/sub/widget", "azure-devops": "org/proj/_git/widget" };

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : e.isFile() ? [join(dir, e.name)] : []));
}

const CASES = DATABASES.flatMap((db) => (["github", "gitlab", "azure-devops"] as FakeKind[]).map((p) => [db, p] as const));

describe.each(CASES)("pull requests (%s, %s)", (kind, provider) => {
  let w: RemoteWorld;
  let fake: FakeProvider;
  let remote: ReturnType<typeof makeRemoteRepo>;
  let repo: any;
  let task: any;
  let session: any;
  let worktree: string;
  let events: Awaited<ReturnType<typeof openEvents>>;
  const responses: unknown[] = [];
  const api = async (method: string, path: string, body?: unknown) => {
    const r = await w.srv.api(method, path, body ?? (method === "GET" ? undefined : {}));
    responses.push(r.body);
    return r;
  };

  beforeAll(async () => {
    w = await remoteWorld(kind, provider, { env: { GROVE_PR_REFRESH_MS: "0", GROVE_LOG_LEVEL: "debug" } });
    remote = makeRemoteRepo(w.root, KEYS[provider], { "README.md": "# widget\n", "a.txt": "a\n" });
    fake = await startFakeProvider(provider, w.token, `${w.http.url}/${KEYS[provider]}`);
    events = await openEvents(w.srv.url);
    repo = await addRemote(w.srv, { url: `${w.http.url}/${KEYS[provider]}`, provider, credential: { token: w.token }, apiUrl: fake.apiUrl });
    ({ task, session } = await launch(w.srv, [{ repositoryId: repo.id }], "PR task"));
    worktree = (await api("GET", `/sessions/${session.id}/workspace`)).body.repositories[0].worktreePath;
    expect((await api("POST", `/sessions/${session.id}/prompt`, { prompt: "write f.txt F\ncommit task work" })).status).toBe(202);
    await waitForSession(w.srv.api, session.id, ["waiting_for_input"]);
  }, 90_000);
  afterAll(async () => {
    events?.close();
    await fake?.close();
    await w?.close();
  });

  test("RV-5 PR: branch pushed with the credential; PR created with title/body/draft; task → review", async () => {
    const r = await api("POST", `/tasks/${task.id}/pull-requests`, { title: "Add f", body: "Why: tests", draft: true });
    expect(r.status).toBe(201);
    expect(r.body).toEqual([expect.objectContaining({ repositoryId: repo.id, provider, number: 1, state: "open", draft: true, checks: "none" })]);
    expect(r.body[0].url).toContain("1");
    const head = gitSync(worktree, "rev-parse", "HEAD").trim();
    const branch = gitSync(worktree, "rev-parse", "--abbrev-ref", "HEAD").trim();
    expect(gitSync(remote.bare, "rev-parse", `refs/heads/${branch}`).trim()).toBe(head);
    expect(r.body[0].headCommit).toBe(head);
    expect(fake.prs[0]).toMatchObject({ title: "Add f", body: "Why: tests", draft: true, head: branch, base: "main" });
    expect(fake.seen.every((s) => s.authorized)).toBe(true);
    expect(w.http.requests.filter((q) => q.service === "git-receive-pack").every((q) => q.authed)).toBe(true);
    expect((await api("GET", `/tasks/${task.id}`)).body.state).toBe("review");
    expect((await api("GET", `/tasks/${task.id}/pull-requests`)).body[0].number).toBe(1);
  });

  test("RV-5 PR: status refresh sees checks pending → failure → success, unchanged answers are 304", async () => {
    const checks = async () => (await api("POST", `/tasks/${task.id}/pull-requests/refresh`)).body[0].checks;
    fake.checks = [{ name: "lint", state: "pending", summary: "running" }];
    expect(await checks()).toBe("pending");
    fake.checks = [{ name: "lint", state: "failure", summary: "lint: 3 errors in f.txt" }];
    expect(await checks()).toBe("failure");
    const before304 = fake.seen.filter((s) => s.status === 304).length;
    expect(await checks()).toBe("failure");
    expect(fake.seen.filter((s) => s.status === 304).length).toBeGreaterThan(before304);
    await waitFor(() => events.frames.some((f) => f.type === "pull_request.updated" && f.data.pullRequest.checks === "failure"), "pull_request.updated");
  });

  test("RV-5 PR: feedback prompt contains the failed check's summary and the review comment", async () => {
    fake.comments = [
      { path: "f.txt", line: 1, body: "Please rename F", resolved: false },
      { path: "f.txt", line: 1, body: "Already fixed", resolved: true },
    ];
    const r = await api("POST", `/tasks/${task.id}/pull-requests/feedback`, { sessionId: session.id });
    expect(r.status).toBe(202);
    await waitForSession(w.srv.api, session.id, ["waiting_for_input"]);
    const text = await agentText(w.srv, session.id);
    expect(text).toContain("lint: 3 errors in f.txt");
    expect(text).toContain("Please rename F");
    if (provider !== "github") expect(text).not.toContain("Already fixed");
  });

  test("RV-5 PR: checks success, then merged on the host → task done", async () => {
    fake.checks = [{ name: "lint", state: "success", summary: "clean" }];
    fake.approved = true;
    const ok = (await api("POST", `/tasks/${task.id}/pull-requests/refresh`)).body[0];
    expect(ok).toMatchObject({ checks: "success", reviewDecision: "approved", state: "open" });
    fake.prs[0]!.state = "merged";
    expect((await api("POST", `/tasks/${task.id}/pull-requests/refresh`)).body[0].state).toBe("merged");
    expect((await api("GET", `/tasks/${task.id}`)).body).toMatchObject({ state: "done", archivedAt: null });
  });

  test("RV-5 PR: 401/404/422/rate limit answers are typed, credential-free errors scoped to task and repository", async () => {
    for (const [mode, code, status] of [
      ["401", "provider_auth_failed", 502],
      ["404", "provider_not_found", 502],
      ["429", "provider_rate_limited", 429],
    ] as const) {
      fake.mode = mode;
      const r = await api("POST", `/tasks/${task.id}/pull-requests/refresh`);
      expect(r.status).toBe(status);
      expect(r.body.error).toMatchObject({ code, details: { taskId: task.id, repositoryId: repo.id } });
    }
    fake.mode = "422";
    const t2 = (await api("POST", "/tasks", { title: "second", repositories: [{ repositoryId: repo.id }] })).body;
    const s2 = await api("POST", `/tasks/${t2.id}/sessions`, { prompt: "write g.txt G\ncommit g" });
    await waitForSession(w.srv.api, s2.body.id, ["waiting_for_input"]);
    const r = await api("POST", `/tasks/${t2.id}/pull-requests`, {});
    expect(r.status).toBe(422);
    expect(r.body.error).toMatchObject({ code: "provider_rejected", details: { taskId: t2.id, repositoryId: repo.id } });
    fake.mode = "ok";
  });

  test("RV-5 PR: never forced — a branch moved on the host refuses; after a rebase, force-with-lease against the last pushed commit", async () => {
    const branch = gitSync(worktree, "rev-parse", "--abbrev-ref", "HEAD").trim();
    remote.commit("base.txt", "new on main\n");
    const u = await api("POST", `/tasks/${task.id}/update-from-base`, {});
    expect(u.status).toBe(200);
    expect(u.body.results[0].outcome).toBe("updated");
    const rebased = gitSync(worktree, "rev-parse", "HEAD").trim();
    const again = await api("POST", `/tasks/${task.id}/pull-requests`, {});
    expect(again.status).toBe(201);
    expect(gitSync(remote.bare, "rev-parse", `refs/heads/${branch}`).trim()).toBe(rebased);
    // Someone else pushes to the branch on the host: Grove's next push must not overwrite it.
    const other = `${remote.bare}.other`;
    gitSync(w.root, "clone", "-q", "-b", branch, remote.bare, other);
    gitSync(other, "-c", "user.name=o", "-c", "user.email=o@x", "commit", "-q", "--allow-empty", "-m", "someone else");
    gitSync(other, "push", "-q", "origin", branch);
    const theirs = gitSync(other, "rev-parse", "HEAD").trim();
    remote.commit("base2.txt", "more on main\n");
    expect((await api("POST", `/tasks/${task.id}/update-from-base`, {})).status).toBe(200);
    const refused = await api("POST", `/tasks/${task.id}/pull-requests`, {});
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe("push_rejected");
    expect(gitSync(remote.bare, "rev-parse", `refs/heads/${branch}`).trim()).toBe(theirs);
  });

  test("RV-5 PR: the token appears nowhere (responses, events, files under GROVE_HOME, database)", async () => {
    await w.srv.stop();
    expect(JSON.stringify(responses)).not.toContain(w.token);
    expect(JSON.stringify(events.frames)).not.toContain(w.token);
    const hits = filesUnder(w.srv.home).filter((f) => readFileSync(f).includes(Buffer.from(w.token)));
    expect(hits).toEqual([]);
    if (kind === "postgres") {
      const c = new pg.Client({ connectionString: w.srv.databaseUrl });
      await c.connect();
      try {
        const cols = await c.query(
          "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'public' AND data_type IN ('text', 'character varying')",
        );
        for (const { table_name, column_name } of cols.rows) {
          const hit = await c.query(`SELECT count(*)::int AS n FROM "${table_name}" WHERE "${column_name}" LIKE $1`, [`%${w.token}%`]);
          expect(hit.rows[0].n, `${table_name}.${column_name}`).toBe(0);
        }
      } finally {
        await c.end();
      }
    }
  });
});
