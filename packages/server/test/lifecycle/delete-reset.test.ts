import { existsSync, readFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { ONE_DATABASE } from "../fixture/db.js";
import { gitSync } from "../fixture/git.js";
import { repoAndTask } from "../fixture/scenario.js";
import { waitFor, waitForSession, serverPerFile } from "../fixture/server.js";
import { envRows, jobsOf, processGone, taskWithSession, waitForJob } from "./helpers.js";

describe.each(ONE_DATABASE)("delete and environment reset (%s)", (kind) => {
  // Each test makes its own repository and task: one server serves them all.
  const perFile = serverPerFile(kind);

  it("LC-6: DELETE of a task with a dirty worktree without discardChanges → 409 dirty_worktree, no job, nothing changed", async () => {
    const srv = await perFile.start();
    const { task, slot, pid } = await taskWithSession(srv);
    const r = await srv.api("DELETE", `/tasks/${task.id}`);
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe("dirty_worktree");
    expect(r.body.error.details.worktreePath).toBe(slot.worktreePath);
    expect(await jobsOf(srv.api, task.id)).toEqual([]);
    expect((await srv.api("GET", `/tasks/${task.id}`)).status).toBe(200);
    expect(readFileSync(`${slot.worktreePath}/wip.txt`, "utf8")).toContain("uncommitted");
    expect((await envRows(srv.api, task.id))[0].status).toBe("active");
    expect(processGone(pid)).toBe(false);
    // The barrier is open again: a session can start.
    expect((await srv.api("POST", `/tasks/${task.id}/sessions`, {})).status).toBe(201);
  });

  it("LC-6 LC-7: DELETE with discardChanges=true removes the worktree and the task; the branch with commits is kept", async () => {
    const srv = await perFile.start();
    const { task, slot, pid, repo } = await taskWithSession(srv);
    const r = await srv.api("DELETE", `/tasks/${task.id}?discardChanges=true`);
    expect(r.status).toBe(202);
    const job = await waitForJob(srv.api, task.id, r.body.jobId, ["succeeded", "failed", "retry_wait"]);
    expect(job).toMatchObject({ state: "succeeded", trigger: "delete" });
    expect((await srv.api("GET", `/tasks/${task.id}`)).status).toBe(404);
    expect(existsSync(slot.worktreePath)).toBe(false);
    expect(processGone(pid)).toBe(true);
    expect(gitSync(repo.path, "worktree", "list", "--porcelain")).not.toContain(slot.worktreePath);
    expect(gitSync(repo.path, "branch", "--list", slot.worktreeBranch).trim()).not.toBe("");
    // LIVE-5: consent given, yet the trash keeps the work on its private ref until the purge.
    expect(gitSync(repo.path, "for-each-ref", "--format=%(refname)", "refs/grove/archived/").trim()).toContain(task.id);
  });

  it("LC-7 (decision): DELETE drops a branch with no commits outside its base (at the purge, LIVE-5); a hand-removed directory does not block", async () => {
    const srv = await perFile.start({ GROVE_TRASH_RETENTION_MS: "0" });
    const { task, slot, session, repo } = await taskWithSession(srv, "say nothing to commit");
    await srv.server.deps.agents.stop(session.id);
    await rm(slot.worktreePath, { recursive: true, force: true });
    const r = await srv.api("DELETE", `/tasks/${task.id}`);
    expect(r.status).toBe(202);
    const job = await waitForJob(srv.api, task.id, r.body.jobId, ["succeeded", "failed", "retry_wait"]);
    expect(job.state).toBe("succeeded");
    await waitFor(async () => (await jobsOf(srv.api, task.id)).some((j) => j.trigger === "purge" && j.state === "succeeded"), "the purge job");
    expect(gitSync(repo.path, "branch", "--list", slot.worktreeBranch).trim()).toBe("");
    expect(gitSync(repo.path, "worktree", "list", "--porcelain")).not.toContain(slot.worktreePath);
  });

  it("LC-2: environment reset while a session runs → 409 session_running, no job", async () => {
    const srv = await perFile.start();
    const { task } = await repoAndTask(srv);
    const s = await srv.api("POST", `/tasks/${task.id}/sessions`, { prompt: "sleep 20000" });
    expect(s.body.state).toBe("running");
    const r = await srv.api("POST", `/tasks/${task.id}/environment/reset`);
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe("session_running");
    expect(await jobsOf(srv.api, task.id)).toEqual([]);
    await srv.api("POST", `/sessions/${s.body.id}/cancel`);
  });

  it("LC-2 LC-7: environment reset removes the worktrees, keeps the branch, the environment is gone, the next session materializes afresh", async () => {
    const srv = await perFile.start();
    const { task, slot, pid, repo, session } = await taskWithSession(srv);
    const env = (await srv.api("GET", `/tasks/${task.id}/environment`)).body;
    const head = gitSync(slot.worktreePath, "rev-parse", "HEAD").trim();
    const r = await srv.api("POST", `/tasks/${task.id}/environment/reset`);
    expect(r.status).toBe(202);
    const job = await waitForJob(srv.api, task.id, r.body.jobId, ["succeeded", "failed", "retry_wait"]);
    expect(job).toMatchObject({ state: "succeeded", trigger: "environment_reset" });
    expect(processGone(pid)).toBe(true);
    expect(existsSync(slot.worktreePath)).toBe(false);
    expect(gitSync(repo.path, "rev-parse", `refs/heads/${slot.worktreeBranch}`).trim()).toBe(head);
    expect((await srv.api("GET", `/tasks/${task.id}/environment`)).status).toBe(404);
    expect((await srv.api("GET", `/sessions/${session.id}`)).body.taskEnvironmentId).toBeNull();
    expect((await srv.api("GET", `/tasks/${task.id}`)).body.archivedAt).toBeNull();

    const next = await srv.api("POST", `/tasks/${task.id}/sessions`, { prompt: "say fresh" });
    expect(next.status).toBe(201);
    await waitForSession(srv.api, next.body.id, ["waiting_for_input"]);
    const fresh = (await srv.api("GET", `/tasks/${task.id}/environment`)).body;
    expect(fresh.id).not.toBe(env.id);
    expect(fresh.repositories[0]).toMatchObject({ status: "active", worktreePath: slot.worktreePath, worktreeBranch: slot.worktreeBranch });
    expect(fresh.repositories[0].worktreeId).not.toBe(slot.worktreeId);
    expect(gitSync(slot.worktreePath, "rev-parse", "HEAD").trim()).toBe(head);
    // LC-8: the reset saved the uncommitted file; the next session gets it back, uncommitted.
    expect(gitSync(slot.worktreePath, "status", "--porcelain").trim()).toBe("?? wip.txt");
  });
});
