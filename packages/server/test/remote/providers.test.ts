import { renameSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { ONE_DATABASE } from "../fixture/db.js";
import { gitSync } from "../fixture/git.js";
import { addRemote, launch, makeRemoteRepo, remoteWorld, unauthenticatedExchanges, type RemoteWorld } from "./helpers.js";

const PLUGIN = join(import.meta.dirname, "harness", "forge-provider.mjs");

describe.each(ONE_DATABASE)("providers behind one interface (%s)", (kind) => {
  let w: RemoteWorld | undefined;
  afterEach(async () => {
    await w?.close();
    w = undefined;
  });

  test("RR-8 GitLab: oauth2 credential form, subgroup layout, one authenticated refresh; merge request head from a fork", async () => {
    w = await remoteWorld(kind, "gitlab");
    const remote = makeRemoteRepo(w.root, "group/sub/tool");
    const repo = await addRemote(w.srv, { url: `${w.http.url}/group/sub/tool.git`, provider: "gitlab", credential: { token: w.token } });
    expect(repo.path).toBe(join(w.srv.home, "clones", "gitlab", `127.0.0.1_${w.http.port}`, "group", "sub", "tool"));
    const head = remote.forkPullRequest("refs/merge-requests/7/head", "mr.txt", "from a fork\n");
    const before = w.http.requests.length;
    const { session } = await launch(w.srv, [{ repositoryId: repo.id, prNumber: 7 }]);
    expect(session.state).toBe("waiting_for_input");
    const seen = w.http.requests.slice(before);
    expect(seen.filter((r) => r.service === "info/refs" && r.status === 200 && r.authed)).toHaveLength(1);
    expect(unauthenticatedExchanges(seen)).toBe(0);
    expect(seen.every((r) => r.user === null || r.user === "oauth2")).toBe(true);
    const ws = await w.srv.api("GET", `/sessions/${session.id}/workspace`);
    expect(gitSync(ws.body.repositories[0].worktreePath, "rev-parse", "HEAD").trim()).toBe(head);
    expect(gitSync(repo.path, "rev-parse", "refs/remotes/origin/pr/7").trim()).toBe(head);
  });

  test("RR-4 Azure DevOps: PAT basic auth and org/project/_git layout; a clone off its scoped path is refused with a typed error", async () => {
    w = await remoteWorld(kind, "azure-devops");
    makeRemoteRepo(w.root, "org/proj/_git/svc");
    const repo = await addRemote(w.srv, { url: `${w.http.url}/org/proj/_git/svc`, provider: "azure-devops", credential: { token: w.token, username: "me" } });
    expect(repo.path).toBe(join(w.srv.home, "clones", "azure-devops", `127.0.0.1_${w.http.port}`, "org", "proj", "svc"));
    const ok = await launch(w.srv, [{ repositoryId: repo.id }], "azure ok");
    expect(ok.session.state).toBe("waiting_for_input");
    expect(w.http.fetches("/org/proj/_git/svc", true)).toBe(2);
    expect(w.http.fetches("/org/proj/_git/svc", false)).toBe(0);

    // A clone moved off its scoped path (row updated to follow it) is refused before any fetch.
    makeRemoteRepo(w.root, "org/other/_git/svc");
    const other = await addRemote(w.srv, {
      url: `${w.http.url}/org/other/_git/svc`,
      provider: "azure-devops",
      credential: { token: w.token },
      name: "svc-other",
    });
    const store = w.srv.server.deps.store;
    const moved = `${other.path}-moved`;
    renameSync(other.path, moved);
    await store.transaction(async (trx: any) => trx.updateTable("repositories").set({ path: moved }).where("id", "=", other.id).execute());
    const before = w.http.requests.length;
    const bad = await launch(w.srv, [{ repositoryId: other.id }], "azure moved");
    expect(bad.session.state).toBe("failed");
    expect(bad.session.lastError).toMatchObject({ code: "refresh_checkout_mismatch", repositoryId: other.id });
    expect(w.http.requests.length - before).toBe(0);
  });

  test("RR-8 a plugin provider registered from a test module works end to end (layout, credential form, PR ref)", async () => {
    w = await remoteWorld(kind, "plugin", { env: { GROVE_PROVIDER_PLUGINS: PLUGIN } });
    const remote = makeRemoteRepo(w.root, "r/team/app");
    const repo = await addRemote(w.srv, { url: `${w.http.url}/r/team/app`, provider: "forge", credential: { token: w.token } });
    expect(repo.provider).toBe("forge");
    expect(repo.path).toBe(join(w.srv.home, "clones", "forge", `127.0.0.1_${w.http.port}`, "team", "app"));
    const head = remote.forkPullRequest("refs/changes/3/head", "change.txt", "forge change\n");
    const { session } = await launch(w.srv, [{ repositoryId: repo.id, prNumber: 3 }]);
    expect(session.state).toBe("waiting_for_input");
    expect(w.http.requests.filter((r) => r.authed).every((r) => r.user === "forge-bot")).toBe(true);
    expect(w.http.fetches("/r/team/app", false)).toBe(0);
    const ws = await w.srv.api("GET", `/sessions/${session.id}/workspace`);
    expect(gitSync(ws.body.repositories[0].worktreePath, "rev-parse", "HEAD").trim()).toBe(head);
  });

  test("RR-6 GitHub fork PR: the worktree's HEAD is the PR head and refs/remotes/origin/pr/N exists", async () => {
    w = await remoteWorld(kind, "github");
    const remote = makeRemoteRepo(w.root, "acme/lib");
    const repo = await addRemote(w.srv, { url: `${w.http.url}/acme/lib`, provider: "github", credential: { token: w.token } });
    const head = remote.forkPullRequest("refs/pull/42/head", "fix.txt", "fork fix\n");
    const before = w.http.requests.length;
    const { session } = await launch(w.srv, [{ repositoryId: repo.id, prNumber: 42 }]);
    expect(session.state).toBe("waiting_for_input");
    expect(w.http.requests.slice(before).filter((r) => r.service === "info/refs" && r.status === 200)).toHaveLength(1);
    const ws = await w.srv.api("GET", `/sessions/${session.id}/workspace`);
    expect(gitSync(ws.body.repositories[0].worktreePath, "rev-parse", "HEAD").trim()).toBe(head);
    expect(gitSync(repo.path, "rev-parse", "--verify", "refs/remotes/origin/pr/42").trim()).toBe(head);
    // A PR number the host does not have → typed refresh_missing_ref.
    const missing = await launch(w.srv, [{ repositoryId: repo.id, prNumber: 99 }], "missing pr");
    expect(missing.session.lastError).toMatchObject({ code: "refresh_missing_ref", repositoryId: repo.id });
  });
});
