import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ONE_DATABASE } from "../fixture/db.js";
import { gitSync, tempDir } from "../fixture/git.js";
import { startTestServer, waitForSession, type TestServer } from "../fixture/server.js";
import { branchesOf, exists, linkedWorktrees, registerRepo } from "./helpers.js";

/** An HTTP "origin" that counts requests and answers 500: any network attempt is visible. */
async function countingOrigin(): Promise<{ url: string; hits: () => number; close: () => Promise<void> }> {
  let hits = 0;
  const server: Server = createServer((_req, res) => {
    hits += 1;
    res.statusCode = 500;
    res.end("no");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const addr = server.address();
  const port = typeof addr === "object" && addr ? addr.port : 0;
  return { url: `http://127.0.0.1:${port}/nowhere.git`, hits: () => hits, close: () => new Promise((r) => server.close(() => r())) };
}

describe.each(ONE_DATABASE)("WT-3 refresh of local checkouts (%s)", (kind) => {
  let srv: TestServer | undefined;
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    await srv?.close();
    srv = undefined;
    for (const c of cleanups.splice(0)) await c();
  });

  /** A bare clone of `repo` as its `origin`, removed after the test. */
  async function bareOrigin(repo: { path: string; git(...args: string[]): string }): Promise<{ bareDir: string; bare: string }> {
    const bareDir = await tempDir("grove-origin-");
    cleanups.push(() => import("node:fs/promises").then((f) => f.rm(bareDir, { recursive: true, force: true })));
    const bare = join(bareDir, "origin.git");
    gitSync(bareDir, "clone", "-q", "--bare", repo.path, bare);
    repo.git("remote", "add", "origin", bare);
    return { bareDir, bare };
  }

  async function launch(s: TestServer, repositoryId: string, title: string) {
    const t = await s.api("POST", "/tasks", { title, repositories: [{ repositoryId }] });
    expect(t.status).toBe(201);
    const r = await s.api("POST", `/tasks/${t.body.id}/sessions`, {});
    const session = ["failed", "waiting_for_input"].includes(r.body.state) ? r.body : await waitForSession(s.api, r.body.id, ["failed", "waiting_for_input"]);
    return { task: t.body, session };
  }

  it("WT-3 pullBeforeWorktree off: an origin that points nowhere is never contacted; on: the launch fails with a typed refresh error naming the repository and leaves no worktree", async () => {
    srv = await startTestServer(kind);
    const origin = await countingOrigin();
    cleanups.push(origin.close);
    const { repo, id } = await registerRepo(srv, "netless", { pullBeforeWorktree: false });
    cleanups.push(() => repo.cleanup());
    repo.git("remote", "add", "origin", origin.url);

    const off = await launch(srv, id, "Offline");
    expect(off.session.state).toBe("waiting_for_input");
    expect(origin.hits()).toBe(0);
    expect(linkedWorktrees(repo)).toHaveLength(1);

    const patched = await srv.api("PATCH", `/repositories/${id}`, { pullBeforeWorktree: true });
    expect(patched.status).toBe(200);
    expect(patched.body.pullBeforeWorktree).toBe(true);
    const branches = branchesOf(repo);
    const on = await launch(srv, id, "Online");
    expect(on.session.state).toBe("failed");
    expect(on.session.lastError).toMatchObject({ code: "refresh_network_failed", repositoryId: id });
    expect(on.session.lastError.message).toContain("netless");
    expect(origin.hits()).toBeGreaterThan(0);
    expect(linkedWorktrees(repo)).toHaveLength(1); // only the first task's
    expect(branchesOf(repo)).toEqual(branches);
  });

  it("WT-3 base selection: origin ahead → starts at origin's commit; local ahead → starts at local; diverged → fails and neither ref moves", async () => {
    srv = await startTestServer(kind);
    const { repo, id } = await registerRepo(srv, "selective", { pullBeforeWorktree: true });
    cleanups.push(() => repo.cleanup());
    const { bareDir, bare } = await bareOrigin(repo);
    repo.git("fetch", "-q", "origin");
    const other = join(bareDir, "other");
    gitSync(bareDir, "clone", "-q", bare, other);
    const otherGit = (...a: string[]) => gitSync(other, "-c", "user.name=O", "-c", "user.email=o@x.invalid", ...a);
    const head = async (session: { id: string }) => {
      const ws = (await srv!.api("GET", `/sessions/${session.id}/workspace`)).body;
      return gitSync(ws.workspacePath, "rev-parse", "HEAD").trim();
    };

    // Origin ahead of local.
    otherGit("commit", "-q", "--allow-empty", "-m", "upstream 1");
    otherGit("push", "-q", "origin", "main");
    const upstream = gitSync(bare, "rev-parse", "main").trim();
    const localBefore = repo.git("rev-parse", "main").trim();
    const ahead = await launch(srv, id, "Origin ahead");
    expect(ahead.session.state).toBe("waiting_for_input");
    expect(await head(ahead.session)).toBe(upstream);
    expect(repo.git("rev-parse", "main").trim()).toBe(localBefore); // the local ref did not move

    // Local ahead (unpushed commits): bring local up to origin, then commit locally.
    repo.git("merge", "-q", "--ff-only", upstream);
    repo.git("commit", "-q", "--allow-empty", "-m", "local only");
    const local = repo.git("rev-parse", "main").trim();
    const behind = await launch(srv, id, "Local ahead");
    expect(behind.session.state).toBe("waiting_for_input");
    expect(await head(behind.session)).toBe(local);

    // Diverged: both sides have their own commit.
    otherGit("commit", "-q", "--allow-empty", "-m", "upstream 2");
    otherGit("push", "-q", "origin", "main");
    const refsBefore = repo.git("for-each-ref");
    const worktreesBefore = linkedWorktrees(repo);
    const diverged = await launch(srv, id, "Diverged");
    expect(diverged.session.state).toBe("failed");
    expect(diverged.session.lastError).toMatchObject({ code: "refresh_base_diverged", repositoryId: id });
    expect(repo.git("for-each-ref")).toBe(refsBefore);
    expect(linkedWorktrees(repo)).toEqual(worktreesBefore);
  });

  it("WT-3 WT-5 pullBeforeWorktree on: a vanished worktree is recreated only after the fetch succeeds; a failed fetch stops the recreate", async () => {
    srv = await startTestServer(kind);
    const { repo, id } = await registerRepo(srv, "recreating", { pullBeforeWorktree: true });
    cleanups.push(() => repo.cleanup());
    const { bare } = await bareOrigin(repo);
    const { session } = await launch(srv, id, "Recreate after fetch");
    expect(session.state).toBe("waiting_for_input");
    const ws = (await srv.api("GET", `/sessions/${session.id}/workspace`)).body;
    await srv.server.deps.agents.stop(session.id);
    await import("node:fs/promises").then((f) => f.rm(ws.workspacePath, { recursive: true, force: true }));

    const origin = await countingOrigin();
    cleanups.push(origin.close);
    repo.git("remote", "set-url", "origin", origin.url);
    expect((await srv.api("POST", `/sessions/${session.id}/prompt`, { prompt: "say hi" })).status).toBe(202);
    const failed = await waitForSession(srv.api, session.id, ["failed"]);
    expect(failed.lastError).toMatchObject({ code: "refresh_network_failed", repositoryId: id });
    expect(origin.hits()).toBeGreaterThan(0);
    expect(exists(ws.workspacePath)).toBe(false);

    repo.git("remote", "set-url", "origin", bare);
    const resumed = await srv.api("POST", `/sessions/${session.id}/resume`);
    expect(resumed.body.state).toBe("waiting_for_input");
    expect(exists(ws.workspacePath)).toBe(true);
    expect(gitSync(ws.workspacePath, "rev-parse", "--abbrev-ref", "HEAD").trim()).toBe(ws.repositories[0].worktreeBranch);
  });
});
