import { randomBytes } from "node:crypto";
import { existsSync, readdirSync, readlinkSync, realpathSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { gitSync, tempDir } from "../fixture/git.js";
import { openEvents, waitForSession } from "../fixture/server.js";
import { startGitHttpServer } from "../remote/harness/git-http-server.js";
import { makeRemoteRepo } from "../remote/harness/repos.js";
import { uniqueToken } from "../remote/helpers.js";
import { canUnshare } from "./isolated.js";
import { agentPids, threeRunners } from "./three-runners.js";
import { cleanupsAfterEach } from "../fixture/cleanups.js";

/**
 * A remote repository (registered by URL) is usable on every runner, each with its own
 * managed clone; a stored credential is opened only by runners that share the key that sealed it.
 * A and C share one credential.key (copied before start); B keeps its own.
 */
describe("remote repositories on every runner (PostgreSQL)", { timeout: 300_000 }, () => {
  const cleanups = cleanupsAfterEach();
  beforeAll(() => expect(canUnshare(), "unshare --mount with a tmpfs must work on this machine").toBe(true));

  async function world() {
    const root = await tempDir("grove-remote-");
    cleanups.push(() => rm(root, { recursive: true, force: true }));
    const token = uniqueToken();
    const http = await startGitHttpServer({ root, kind: "github", token });
    cleanups.push(() => http.close());
    const remote = makeRemoteRepo(root, "acme/widget", { "README.md": "# widget\n" });
    const sharedKey = randomBytes(32);
    const cluster = await threeRunners(cleanups, {
      // Both servers hold concurrent first launches; C gets two at once.
      env: { GROVE_RUNNER_MAX_AGENTS: "4" },
      beforeStart: async (homes) => {
        for (const h of [homes.a, homes.c]) writeFileSync(join(h, "credential.key"), sharedKey, { mode: 0o600 });
      },
    });
    const reg = await cluster.a.api("POST", "/repositories", { url: `${http.url}/acme/widget.git`, provider: "github", credential: { token } });
    expect(reg.status).toBe(201);
    const repo = reg.body as { id: string; path: string };
    const clonePath = (home: string) => join(home, "clones", "github", `127.0.0.1_${http.port}`, "acme", "widget");
    return { ...cluster, root, http, remote, token, repo, clonePath };
  }

  it("RUN-17: a managed-credential remote repository registered through A, a task placed on C by label and started through A: C clones it into C's home (the agent's cwd too), never A's; concurrent first launches on C share one clone and a later task reuses it", async () => {
    const { databaseUrl, homes, a, b, c, http, remote, repo, clonePath } = await world();
    const aHome = realpathSync(homes.a);
    const cHome = realpathSync(homes.c);
    expect(realpathSync(repo.path)).toBe(realpathSync(clonePath(homes.a)));
    const aWorktreesBefore = gitSync(repo.path, "worktree", "list", "--porcelain");
    expect(existsSync(clonePath(homes.c))).toBe(false);
    const pushed = remote.commit("b.txt", "b\n");

    const newTask = async (title: string, via = a) => {
      const t = await via.api("POST", "/tasks", { title, repositories: [{ repositoryId: repo.id }], runnerLabels: ["gpu"] });
      expect(t.status).toBe(201);
      return t.body.id as string;
    };
    const first = [await newTask("on C one"), await newTask("on C two")];
    const events = await openEvents(c.url);
    cleanups.push(async () => events.close());
    const exchangesBefore = http.fetches("/acme/widget", true);
    // Two first launches at once, through A: both placed on C, which has no clone yet.
    const started = await Promise.all(first.map((id) => a.api("POST", `/tasks/${id}/sessions`, { prompt: "say hi" })));
    expect(started.map((s) => s.status)).toEqual([201, 201]);
    for (const s of started)
      expect((await waitForSession(b.api, s.body.id as string, ["waiting_for_input", "failed"], 90_000)).state).toBe("waiting_for_input");
    for (const id of first) expect((await b.api("GET", `/tasks/${id}`)).body).toMatchObject({ runnerId: "runner_c", runnerState: "online" });

    // C's own clone, under C's home, with the provider's origin (no credential in it).
    const cClone = clonePath(homes.c);
    expect(realpathSync(cClone).startsWith(`${cHome}/`)).toBe(true);
    expect(gitSync(cClone, "config", "remote.origin.url").trim()).toBe(`${http.url}/acme/widget.git`);
    expect(gitSync(cClone, "config", "--list")).not.toContain("tok_");
    // One clone for the two launches (then one refresh fetch each): 3 authenticated exchanges.
    expect(http.fetches("/acme/widget", true) - exchangesBefore).toBe(3);
    expect(events.frames.some((f) => f.type === "repository.clone_progress" && f.data.repositoryId === repo.id)).toBe(true);
    expect(readdirSync(join(cClone, "..")).sort()).toEqual(["widget"]);

    // Worktrees and agents are C's: cwd under C's home, the fetched commit checked out.
    for (const id of first) {
      const env = await b.api("GET", `/tasks/${id}/environment`);
      expect(env.status).toBe(200);
      const wt = env.body.repositories[0].worktreePath as string;
      expect(realpathSync(wt).startsWith(`${cHome}/`)).toBe(true);
      expect(env.body.repositories[0].worktreeState).toBe("ok");
      expect(gitSync(wt, "rev-parse", "HEAD").trim()).toBe(pushed);
      const changes = await b.api("GET", `/tasks/${id}/changes`);
      expect(changes.status).toBe(200);
    }
    const pids = await agentPids(databaseUrl, "runner_c");
    expect(pids).toHaveLength(2);
    for (const pid of pids) expect(readlinkSync(`/proc/${pid}/cwd`).startsWith(`${cHome}/`)).toBe(true);
    // C's worktrees hang off C's clone; A's clone knows none of them.
    expect(
      gitSync(cClone, "worktree", "list", "--porcelain")
        .split("\n")
        .filter((l) => l.startsWith("worktree ")).length,
    ).toBe(3);
    expect(gitSync(repo.path, "worktree", "list", "--porcelain")).toBe(aWorktreesBefore);
    expect(existsSync(join(homes.a, "tasks")) ? readdirSync(join(homes.a, "tasks")) : []).toEqual([]);

    // A later task on C reuses C's clone: no second clone (the marker survives), one fetch. It is
    // created through B, which has no clone of its own (and cannot see A's): accepted, the base
    // branch is checked where the worktree is made.
    writeFileSync(join(cClone, ".git", "grove-test-marker"), "one clone\n");
    expect(existsSync(clonePath(homes.b))).toBe(false);
    const later = await newTask("on C three", b);
    // Settings too: B checks a new default branch in no other runner's clone (it has none).
    const patched = await b.api("PATCH", `/repositories/${repo.id}`, { defaultBranch: "main", setupScript: "true" });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    const before = http.fetches("/acme/widget", true);
    const s3 = await a.api("POST", `/tasks/${later}/sessions`, { prompt: "say hi" });
    expect(s3.status).toBe(201);
    expect((await waitForSession(a.api, s3.body.id as string, ["waiting_for_input", "failed"], 90_000)).state).toBe("waiting_for_input");
    expect((await a.api("GET", `/tasks/${later}`)).body).toMatchObject({ runnerId: "runner_c" });
    expect(existsSync(join(cClone, ".git", "grove-test-marker"))).toBe(true);
    expect(http.fetches("/acme/widget", true) - before).toBe(1);
    expect(readdirSync(join(cClone, "..")).sort()).toEqual(["widget"]);
    expect(aHome).not.toBe(cHome);
  });

  it("RUN-18: a runner whose credential key differs is never chosen for a managed-credential remote repository; naming it is refused 409 no_runner_available (credential_key) with what to copy; credential-less access fits it", async () => {
    const { a, b, homes, root, repo, clonePath } = await world();
    const task = async (title: string) => (await a.api("POST", "/tasks", { title, repositories: [{ repositoryId: repo.id }] })).body.id as string;

    // Named explicitly: refused before anything is written, saying which key and what to copy.
    const named = await task("named B");
    const refused = await a.api("POST", `/tasks/${named}/sessions`, { prompt: "say hi", runnerId: "runner_b" });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({
      code: "no_runner_available",
      details: { reason: "credential_key", runnerId: "runner_b", repositoryId: repo.id, registeredBy: "runner_a" },
    });
    expect(refused.body.error.details.credentialKeyId).toMatch(/^[0-9a-f]{16}$/);
    expect(refused.body.error.details.runnerCredentialKeyId).not.toBe(refused.body.error.details.credentialKeyId);
    expect(refused.body.error.message).toContain("credential.key");
    // GET /runners tells an operator which runners share a key (the id, never the key).
    const keyIds = Object.fromEntries(
      ((await b.api("GET", "/runners")).body as { id: string; credentialKeyId: string }[]).map((r) => [r.id, r.credentialKeyId]),
    );
    expect(keyIds.runner_a).toBe(refused.body.error.details.credentialKeyId);
    expect(keyIds.runner_c).toBe(keyIds.runner_a);
    expect(keyIds.runner_b).toBe(refused.body.error.details.runnerCredentialKeyId);
    expect((await a.api("GET", `/tasks/${named}/sessions`)).body).toEqual([]);
    expect((await a.api("GET", `/tasks/${named}/environment`)).status).toBe(404);

    // Launched through B with no label: B is idle and would win the tie (no hop), but lacks the key.
    for (const title of ["via B one", "via B two"]) {
      const id = await task(title);
      const s = await b.api("POST", `/tasks/${id}/sessions`, { prompt: "say hi" });
      expect(s.status).toBe(201);
      expect((await waitForSession(b.api, s.body.id as string, ["waiting_for_input", "failed"], 90_000)).state).toBe("waiting_for_input");
      expect((await b.api("GET", `/tasks/${id}`)).body.runnerId).not.toBe("runner_b");
    }
    expect(existsSync(clonePath(homes.b))).toBe(false);

    // Executor access (no stored credential) fits every runner: B clones it into B's home.
    const open = await startGitHttpServer({ root, kind: "github" });
    cleanups.push(() => open.close());
    const reg = await a.api("POST", "/repositories", {
      url: `${open.url}/acme/widget.git`,
      provider: "github",
      credentialPolicy: "executor",
      name: "widget-open",
    });
    expect(reg.status).toBe(201);
    const t = await a.api("POST", "/tasks", { title: "executor on B", repositories: [{ repositoryId: reg.body.id }] });
    const s = await a.api("POST", `/tasks/${t.body.id}/sessions`, { prompt: "say hi", runnerId: "runner_b" });
    expect(s.status).toBe(201);
    expect((await waitForSession(a.api, s.body.id as string, ["waiting_for_input", "failed"], 90_000)).state).toBe("waiting_for_input");
    const bClone = join(homes.b, "clones", "github", `127.0.0.1_${open.port}`, "acme", "widget");
    expect(realpathSync(bClone).startsWith(`${realpathSync(homes.b)}/`)).toBe(true);
    expect(gitSync(bClone, "config", "remote.origin.url").trim()).toBe(`${open.url}/acme/widget.git`);
  });
});
