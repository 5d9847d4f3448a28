import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { DATABASES } from "../fixture/db.js";
import { gitSync } from "../fixture/git.js";
import { repoAndTask } from "../fixture/scenario.js";
import { waitForSession, type TestServer, serverPerFile } from "../fixture/server.js";

describe.each(DATABASES)("worktree recovery and attach validation (%s)", (kind) => {
  // Each test makes its own repository and task: one server serves them all.
  const perFile = serverPerFile(kind);

  async function sessionWithCommit(s: TestServer) {
    const ctx = await repoAndTask(s);
    const res = await s.api("POST", `/tasks/${ctx.task.id}/sessions`, { prompt: "write work.txt v1\ncommit first\nwrite later.txt pending" });
    expect(res.status).toBe(201);
    await waitForSession(s.api, res.body.id, ["waiting_for_input"]);
    const ws = (await s.api("GET", `/sessions/${res.body.id}/workspace`)).body;
    return { ...ctx, session: res.body, ws, slot: ws.repositories[0] };
  }

  it("WT-5: a worktree removed by hand is recreated by the next prompt at the same path, on the same branch, with its commits", async () => {
    const srv = await perFile.start();
    const { session, slot, repo } = await sessionWithCommit(srv);
    const head = gitSync(slot.worktreePath, "rev-parse", "HEAD").trim();
    await srv.server.deps.agents.stop(session.id);
    await rm(slot.worktreePath, { recursive: true, force: true });
    const p = await srv.api("POST", `/sessions/${session.id}/prompt`, { prompt: "write after.txt back" });
    expect(p.status).toBe(202);
    const done = await waitForSession(srv.api, session.id, ["waiting_for_input", "failed"]);
    expect(done.state).toBe("waiting_for_input");
    expect(existsSync(`${slot.worktreePath}/after.txt`)).toBe(true);
    expect(gitSync(slot.worktreePath, "rev-parse", "--abbrev-ref", "HEAD").trim()).toBe(slot.worktreeBranch);
    expect(gitSync(slot.worktreePath, "rev-parse", "HEAD").trim()).toBe(head);
    const ws = (await srv.api("GET", `/sessions/${session.id}/workspace`)).body;
    expect(ws.repositories[0]).toMatchObject({ worktreeId: slot.worktreeId, worktreePath: slot.worktreePath, worktreeBranch: slot.worktreeBranch });
    expect(gitSync(repo.path, "worktree", "list", "--porcelain")).toContain(slot.worktreePath);
  });

  it("WT-5: worktree and branch both gone → failed with branch_unrecoverable, nothing invented", async () => {
    const srv = await perFile.start();
    const { session, slot, repo } = await sessionWithCommit(srv);
    await srv.server.deps.agents.stop(session.id);
    await rm(slot.worktreePath, { recursive: true, force: true });
    gitSync(repo.path, "worktree", "prune");
    gitSync(repo.path, "branch", "-D", slot.worktreeBranch);
    const p = await srv.api("POST", `/sessions/${session.id}/prompt`, { prompt: "say hi" });
    expect(p.status).toBe(202);
    const s = await waitForSession(srv.api, session.id, ["failed"]);
    expect(s.lastError).toMatchObject({ code: "branch_unrecoverable", repositoryId: slot.repositoryId });
    expect(existsSync(slot.worktreePath)).toBe(false);
    expect(gitSync(repo.path, "branch", "--list", slot.worktreeBranch).trim()).toBe("");
    // Durable: still there after a reload.
    expect((await srv.api("GET", `/sessions/${session.id}`)).body.lastError.code).toBe("branch_unrecoverable");
  });

  it("WT-5: POST /environment/restore recreates a vanished worktree for a task with no session", async () => {
    const srv = await perFile.start();
    const { session, slot, task } = await sessionWithCommit(srv);
    await srv.api("DELETE", `/sessions/${session.id}`);
    await rm(slot.worktreePath, { recursive: true, force: true });
    const r = await srv.api("POST", `/tasks/${task.id}/environment/restore`);
    expect(r.status).toBe(200);
    expect(existsSync(`${slot.worktreePath}/work.txt`)).toBe(true);
  });

  it("SES-3: attach to a worktree switched to another branch → 409 workspace_reuse_unsafe, no session row, nothing changed", async () => {
    const srv = await perFile.start();
    const { task, slot } = await sessionWithCommit(srv);
    gitSync(slot.worktreePath, "stash", "-u");
    gitSync(slot.worktreePath, "switch", "-c", "elsewhere");
    const before = (await srv.api("GET", `/tasks/${task.id}/sessions`)).body.length;
    const r = await srv.api("POST", `/tasks/${task.id}/sessions`, {});
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe("workspace_reuse_unsafe");
    expect(r.body.error.details.reason).toBe("wrong_branch");
    expect((await srv.api("GET", `/tasks/${task.id}/sessions`)).body.length).toBe(before);
    expect(gitSync(slot.worktreePath, "rev-parse", "--abbrev-ref", "HEAD").trim()).toBe("elsewhere");
  });

  it("SES-3: attach when the worktree was replaced by a plain directory → 409, the directory untouched", async () => {
    const srv = await perFile.start();
    const { task, slot } = await sessionWithCommit(srv);
    await rm(slot.worktreePath, { recursive: true, force: true });
    mkdirSync(slot.worktreePath);
    writeFileSync(`${slot.worktreePath}/mine.txt`, "not a worktree");
    const r = await srv.api("POST", `/tasks/${task.id}/sessions`, {});
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe("workspace_reuse_unsafe");
    expect(r.body.error.details.reason).toBe("not_a_worktree");
    expect(readdirSync(slot.worktreePath)).toEqual(["mine.txt"]);
    expect((await srv.api("GET", `/tasks/${task.id}/sessions`)).body).toHaveLength(1);
  });

  it("SES-2: two concurrent first sessions → one materializes, the other is refused or attaches; one environment, one worktree", async () => {
    const srv = await perFile.start();
    const { task, repo } = await repoAndTask(srv);
    const [a, b] = await Promise.all([srv.api("POST", `/tasks/${task.id}/sessions`, {}), srv.api("POST", `/tasks/${task.id}/sessions`, {})]);
    const statuses = [a.status, b.status].sort();
    expect(statuses[0]).toBe(201);
    if (statuses[1] === 409) {
      const refused = a.status === 409 ? a : b;
      expect(refused.body.error.code).toBe("workspace_preparing");
    } else {
      expect(statuses[1]).toBe(201);
    }
    const sessions = (await srv.api("GET", `/tasks/${task.id}/sessions`)).body;
    expect(sessions).toHaveLength(statuses[1] === 201 ? 2 : 1);
    const env = (await srv.api("GET", `/tasks/${task.id}/environment`)).body;
    expect(env.repositories).toHaveLength(1);
    for (const s of sessions) expect(s.taskEnvironmentId).toBe(env.id);
    const worktrees = gitSync(repo.path, "worktree", "list", "--porcelain")
      .split("\n")
      .filter((l) => l.startsWith("worktree "));
    expect(worktrees).toHaveLength(2); // the checkout itself + one task worktree
  });
});
