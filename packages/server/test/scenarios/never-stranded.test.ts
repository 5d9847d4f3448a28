import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { isAlive } from "../../src/agents/process-info.js";
import { DATABASES, freshDatabase } from "../fixture/db.js";
import { gitSync, makeRepo } from "../fixture/git.js";
import { startTestServer, waitForSession, type TestServer } from "../fixture/server.js";
import { taskWithSession, waitForJob } from "../lifecycle/helpers.js";
import { runGrove } from "../cli/run-cli.js";

/** "never stranded": every vanished or archived workspace comes back (WT-5, SES-3, LC-5, LC-8, CHG-4). */
describe.each(DATABASES)("never stranded (%s)", (kind) => {
  let srv: TestServer | undefined;
  afterEach(async () => {
    await srv?.close();
    srv = undefined;
  });

  const statusLines = (wt: string): string[] => gitSync(wt, "status", "--porcelain").split("\n").filter(Boolean).sort();

  it("WT-5: rm -rf under a LIVE agent → the prompt stops it, recreates the worktree in place, relaunches with session/load in the same cwd; writes and commits land there", async () => {
    srv = await startTestServer(kind);
    const { session, slot, pid } = await taskWithSession(srv, "write work.txt v1\ncommit first");
    const head = gitSync(slot.worktreePath, "rev-parse", "HEAD").trim();
    expect(pid).toBeDefined();
    // This test proves the prompt's own check; the watcher, which would stop the agent first, is
    // tested in live-changes.test.ts.
    srv.server.orchestrator.changesWatch.dispose();
    await rm(slot.worktreePath, { recursive: true, force: true });

    const p = await srv.api("POST", `/sessions/${session.id}/prompt`, { prompt: "write after.txt back\ncommit second" });
    expect(p.status).toBe(202);
    const done = await waitForSession(srv.api, session.id, ["waiting_for_input", "failed"]);
    expect(done.lastError).toBeNull();
    expect(done.state).toBe("waiting_for_input");
    expect(readFileSync(join(slot.worktreePath, "after.txt"), "utf8")).toBe("back");
    expect(gitSync(slot.worktreePath, "rev-parse", "--abbrev-ref", "HEAD").trim()).toBe(slot.worktreeBranch);
    expect(gitSync(slot.worktreePath, "rev-parse", "HEAD~1").trim()).toBe(head);
    expect(gitSync(slot.worktreePath, "log", "-1", "--format=%s").trim()).toBe("second");
    const handle = srv.server.deps.agents.get(session.id);
    expect(handle?.pid).not.toBe(pid);
    expect(handle?.resumed).toBe(true);
    expect(isAlive(pid!)).toBe(false);
    const ws = (await srv.api("GET", `/sessions/${session.id}/workspace`)).body;
    expect(ws.repositories[0]).toMatchObject({ worktreeId: slot.worktreeId, worktreePath: slot.worktreePath });
  });

  it("WT-5 / SES-3: a directory someone else put at the path is never overwritten; prompt, resume, new session and restore all refuse with details.action", async () => {
    srv = await startTestServer(kind);
    const { task, session, slot } = await taskWithSession(srv, "write work.txt v1\ncommit first");
    await rm(slot.worktreePath, { recursive: true, force: true });
    mkdirSync(slot.worktreePath);
    writeFileSync(join(slot.worktreePath, "mine.txt"), "not grove's\n");

    expect((await srv.api("POST", `/sessions/${session.id}/prompt`, { prompt: "write x.txt y" })).status).toBe(202);
    const failed = await waitForSession(srv.api, session.id, ["failed"]);
    expect(failed.lastError).toMatchObject({ code: "workspace_reuse_unsafe", repositoryId: slot.repositoryId });
    expect(failed.lastError.action).toContain("move or delete");
    // Resume answers the session's real state, never success for a session it left failed.
    const r = await srv.api("POST", `/sessions/${session.id}/resume`);
    expect(r.body).toMatchObject({ state: "failed", lastError: { code: "workspace_reuse_unsafe" } });
    const cli = await runGrove(["session", "resume", session.id, "--server", srv.url]);
    expect(cli.code).not.toBe(0);
    expect(cli.stderr).toContain("workspace_reuse_unsafe");
    expect(cli.stderr).toContain("action: move or delete");

    const n = await srv.api("POST", `/tasks/${task.id}/sessions`, {});
    expect(n.status).toBe(409);
    expect(n.body.error.details).toMatchObject({ reason: "not_a_worktree", action: expect.stringContaining(`grove task restore ${task.id}`) });
    const restore = await srv.api("POST", `/tasks/${task.id}/environment/restore`);
    expect(restore.status).toBe(409);
    expect(restore.body.error.details.action).toContain("move or delete");
    expect(readdirSync(slot.worktreePath)).toEqual(["mine.txt"]);
    const env = (await srv.api("GET", `/tasks/${task.id}/environment`)).body;
    expect(env.repositories[0]).toMatchObject({ worktreeState: "foreign" });
    const changes = (await srv.api("GET", `/tasks/${task.id}/changes`)).body;
    expect(changes.repositories[0]).toMatchObject({ status: "foreign", errorCode: "workspace_reuse_unsafe" });
  });

  it("LC-5 / LC-8: after archive → unarchive, OLD sessions prompt and resume; saved work is back once, staged and unstaged apart", async () => {
    srv = await startTestServer(kind);
    const { task, session, slot, repo } = await taskWithSession(srv, "write work.txt v1\ncommit first\nwrite wip.txt uncommitted");
    const other = await srv.api("POST", `/tasks/${task.id}/sessions`, {});
    expect(other.status).toBe(201);
    await waitForSession(srv.api, other.body.id, ["waiting_for_input"]);
    const wt = slot.worktreePath as string;
    writeFileSync(join(wt, "staged.txt"), "staged\n");
    writeFileSync(join(wt, "README.md"), "staged edit\n");
    gitSync(wt, "add", "staged.txt", "README.md");
    writeFileSync(join(wt, "README.md"), "unstaged edit on top\n");
    const before = statusLines(wt);
    expect(before).toEqual(["?? wip.txt", "A  staged.txt", "MM README.md"]);

    const a = await srv.api("POST", `/tasks/${task.id}/archive`);
    await waitForJob(srv.api, task.id, a.body.jobId, ["succeeded"]);
    expect(existsSync(wt)).toBe(false);
    expect((await srv.api("POST", `/tasks/${task.id}/unarchive`)).status).toBe(200);
    // Before anything is prompted: Changes say "missing" and how to fix it, not "no repositories".
    const gone = (await srv.api("GET", `/tasks/${task.id}/changes`)).body;
    expect(gone.repositories).toHaveLength(1);
    expect(gone.repositories[0]).toMatchObject({ status: "missing", errorCode: "workspace_missing" });

    expect((await srv.api("POST", `/sessions/${session.id}/prompt`, { prompt: "write after.txt yes" })).status).toBe(202);
    const back = await waitForSession(srv.api, session.id, ["waiting_for_input", "failed"]);
    expect(back.lastError).toBeNull();
    expect(readFileSync(join(wt, "after.txt"), "utf8")).toBe("yes");
    expect(readFileSync(join(wt, "README.md"), "utf8")).toBe("unstaged edit on top\n");
    expect(gitSync(wt, "show", ":README.md")).toBe("staged edit\n");
    expect(statusLines(wt)).toEqual(["?? after.txt", "?? wip.txt", "A  staged.txt", "MM README.md"]);
    // Restored once: the private ref is gone.
    expect(gitSync(repo.path, "for-each-ref", `refs/grove/archived/${task.id}`).trim()).toBe("");

    const resumed = await srv.api("POST", `/sessions/${other.body.id}/resume`);
    expect(resumed.status).toBe(202);
    expect(resumed.body.state).toBe("waiting_for_input");
    expect((await srv.api("GET", `/tasks/${task.id}/changes`)).body.repositories[0].status).toBe("ok");
  });

  it("WT-5 / SES-3: after a restart, task start on a missing worktree recreates it in place; grove task restore does the same", async () => {
    const db = await freshDatabase(kind);
    srv = await startTestServer(kind, db);
    const { task, slot } = await taskWithSession(srv, "write work.txt v1\ncommit first");
    const head = gitSync(slot.worktreePath, "rev-parse", "HEAD").trim();
    await srv.stop();
    await rm(slot.worktreePath, { recursive: true, force: true });
    srv = await startTestServer(kind, db);
    const env = (await srv.api("GET", `/tasks/${task.id}/environment`)).body;
    expect(env.repositories[0]).toMatchObject({ worktreeState: "missing", action: expect.stringContaining(`grove task restore ${task.id}`) });

    const start = await runGrove(["task", "start", task.id, "--prompt", "write again.txt yes", "--wait", "--server", srv.url]);
    expect(start.code).toBe(0);
    expect(start.stdout).toContain("Waiting for you");
    expect(gitSync(slot.worktreePath, "rev-parse", "HEAD").trim()).toBe(head);
    expect(readFileSync(join(slot.worktreePath, "again.txt"), "utf8")).toBe("yes");

    await srv.server.deps.agents.stopAll({ graceMs: 500 });
    await rm(slot.worktreePath, { recursive: true, force: true });
    const restore = await runGrove(["task", "restore", task.id, "--server", srv.url]);
    expect(restore.code).toBe(0);
    expect(restore.stdout).toContain(slot.worktreePath);
    expect(existsSync(join(slot.worktreePath, "work.txt"))).toBe(true);
    expect(gitSync(slot.worktreePath, "rev-parse", "--abbrev-ref", "HEAD").trim()).toBe(slot.worktreeBranch);
  });

  it("CHG-4 / seed 000: Changes of a missing worktree are typed, never a spawn error; a row with no identity fails closed", async () => {
    srv = await startTestServer(kind);
    const { task, session, slot } = await taskWithSession(srv, "write work.txt v1");
    await srv.server.deps.agents.stop(session.id);
    await rm(slot.worktreePath, { recursive: true, force: true });
    const c = await srv.api("GET", `/tasks/${task.id}/changes`);
    expect(c.status).toBe(200);
    expect(c.body.repositories).toHaveLength(1);
    expect(c.body.repositories[0]).toMatchObject({
      status: "missing",
      errorCode: "workspace_missing",
      action: expect.stringContaining(`grove task restore ${task.id}`),
    });
    expect(JSON.stringify(c.body)).not.toMatch(/spawn|ENOENT/);

    // An inventory-only row (no worktree tuple) for a second repository: reported, not dropped.
    const second = await makeRepo({ name: "second" });
    const r2 = await srv.api("POST", "/repositories", { path: second.path });
    expect(r2.status).toBe(201);
    const deps = srv.server.deps;
    const env = await deps.store.getEnvironmentByTask(task.id);
    await deps.store.mergeEnvironmentRepos(
      env!.id,
      [{ repositoryId: r2.body.id, branchSlug: "", baseBranch: "main", position: 1, errorMessage: null }],
      deps.now(),
    );
    const c2 = (await srv.api("GET", `/tasks/${task.id}/changes`)).body;
    expect(c2.repositories.map((r: any) => r.status)).toEqual(["missing", "no_identity"]);
    expect(c2.repositories[1]).toMatchObject({ repositoryId: r2.body.id, errorCode: "workspace_missing", files: [] });
  });
});
