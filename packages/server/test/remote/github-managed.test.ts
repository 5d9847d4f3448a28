import { existsSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ONE_DATABASE } from "../fixture/db.js";
import { gitSync } from "../fixture/git.js";
import { openEvents, waitForSession } from "../fixture/server.js";
import { addRemote, launch, makeRemoteRepo, remoteWorld, unauthenticatedExchanges, type RemoteWorld } from "./helpers.js";

describe.each(ONE_DATABASE)("managed GitHub repository (%s)", (kind) => {
  let w: RemoteWorld;
  let remote: ReturnType<typeof makeRemoteRepo>;
  let repo: any;
  let events: Awaited<ReturnType<typeof openEvents>>;

  beforeAll(async () => {
    w = await remoteWorld(kind, "github");
    remote = makeRemoteRepo(w.root, "acme/widget", { "README.md": "# widget\n", "src/a.txt": "a\n" });
    events = await openEvents(w.srv.url);
    repo = await addRemote(w.srv, { url: `${w.http.url}/acme/widget.git`, provider: "github", credential: { token: w.token } });
  });
  afterAll(async () => {
    events?.close();
    await w?.close();
  });

  test("RR-1 registering clones into clones/<provider>/<host>/<owner>/<name> with progress events; the row stores the clone path", () => {
    expect(repo.path).toBe(join(w.srv.home, "clones", "github", `127.0.0.1_${w.http.port}`, "acme", "widget"));
    expect(repo).toMatchObject({ provider: "github", credentialPolicy: "managed", hasCredential: true, defaultBranch: "main", pullBeforeWorktree: true });
    expect(repo).not.toHaveProperty("credential");
    expect(gitSync(repo.path, "rev-parse", "HEAD")).toBe(gitSync(remote.bare, "rev-parse", "main"));
    expect(gitSync(repo.path, "config", "remote.origin.url").trim()).toBe(`${w.http.url}/acme/widget.git`);
    expect(events.frames.some((f) => f.type === "repository.clone_progress" && f.data.repositoryId === repo.id)).toBe(true);
    expect(w.http.fetches("/acme/widget", true)).toBe(1);
    expect(w.http.fetches("/acme/widget", false)).toBe(0);
  });

  test("RR-2 the key file is mode 0600 and the API returns hasCredential only", async () => {
    expect(statSync(join(w.srv.home, "credential.key")).mode & 0o777).toBe(0o600);
    const list = await w.srv.api("GET", "/repositories");
    expect(JSON.stringify(list.body)).not.toContain(w.token);
  });

  test("RR-5 first session: one authenticated fetch before its worktree, none unauthenticated; attach: none; valid reuse on a prompt (agent relaunched): none; recreate: one", async () => {
    const pushed = remote.commit("src/b.txt", "b\n");
    const before = w.http.requests.length;
    const { task, session } = await launch(w.srv, [{ repositoryId: repo.id }]);
    expect(session.state).toBe("waiting_for_input");
    const during = w.http.requests.slice(before);
    expect(during.filter((r) => r.service === "info/refs" && r.status === 200 && r.authed)).toHaveLength(1);
    expect(unauthenticatedExchanges(during)).toBe(0);
    const ws = await w.srv.api("GET", `/sessions/${session.id}/workspace`);
    const wt = ws.body.repositories[0].worktreePath as string;
    // The worktree started from the fetched base: the commit pushed after registration is there.
    expect(gitSync(wt, "rev-parse", "HEAD").trim()).toBe(pushed);

    const attachBefore = w.http.requests.length;
    const s2 = await w.srv.api("POST", `/tasks/${task.id}/sessions`, {});
    expect(s2.status).toBe(201);
    await waitForSession(w.srv.api, s2.body.id, ["waiting_for_input"]);
    expect(w.http.requests.length - attachBefore).toBe(0);

    // Valid reuse on a prompt: no refresh — also when the agent is gone and is relaunched
    // (the prompt then validates the workspace before the relaunch, WT-5).
    await w.srv.server.deps.agents.stopAll({ graceMs: 500 });
    const p1 = await w.srv.api("POST", `/sessions/${session.id}/prompt`, { prompt: "say again" });
    expect(p1.status).toBe(202);
    await waitForSession(w.srv.api, session.id, ["waiting_for_input"]);
    expect(w.srv.server.deps.agents.get(session.id)?.resumed).toBe(true);
    expect(w.http.requests.length - attachBefore).toBe(0);

    // A failed environment whose worktree is intact is materialized again by the next prompt:
    // the valid worktree is reused, still without a refresh.
    const deps = w.srv.server.deps;
    await deps.agents.stopAll({ graceMs: 500 });
    const env = await deps.store.getEnvironmentByTask(task.id);
    expect(await deps.store.setEnvironmentStatus(env!.id, ["ready"], "failed", {}, deps.now())).toBeDefined();
    const p1b = await w.srv.api("POST", `/sessions/${session.id}/prompt`, { prompt: "say once more" });
    expect(p1b.status).toBe(202);
    expect((await waitForSession(w.srv.api, session.id, ["waiting_for_input", "failed"])).state).toBe("waiting_for_input");
    expect((await w.srv.api("GET", `/tasks/${task.id}/environment`)).body.status).toBe("ready");
    expect(w.http.requests.length - attachBefore).toBe(0);

    // The directory removed by hand: after a restart-free agent stop the next prompt recreates it.
    await w.srv.server.deps.agents.stopAll({ graceMs: 500 });
    rmSync(wt, { recursive: true, force: true });
    const recreateBefore = w.http.requests.length;
    const p2 = await w.srv.api("POST", `/sessions/${session.id}/prompt`, { prompt: "say back" });
    expect(p2.status).toBe(202);
    await waitForSession(w.srv.api, session.id, ["waiting_for_input", "failed"]);
    expect(existsSync(wt)).toBe(true);
    const recreate = w.http.requests.slice(recreateBefore);
    expect(recreate.filter((r) => r.service === "info/refs" && r.status === 200 && r.authed)).toHaveLength(1);
    expect(unauthenticatedExchanges(recreate)).toBe(0);
    // Four agent starts and three relaunches: room for a loaded 2-core runner.
  }, 180_000);
});
