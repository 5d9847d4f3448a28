import { existsSync, readFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { DATABASES } from "../fixture/db.js";
import { gitSync } from "../fixture/git.js";
import { waitForSession, serverPerFile } from "../fixture/server.js";
import { envRows, jobsOf, processGone, taskWithSession, waitForJob } from "./helpers.js";

describe.each(DATABASES)("archive (%s)", (kind) => {
  // Each test makes its own repository and task: one server serves them all.
  const perFile = serverPerFile(kind);

  it("LC-3 LC-7 ENV-4 LC-8: archive stops the agents, removes the worktree and its registration, keeps the branch, tombstones the rows, saves uncommitted work", async () => {
    const srv = await perFile.start();
    const { task, slot, pid, repo } = await taskWithSession(srv);
    expect(pid).toBeGreaterThan(0);
    const head = gitSync(slot.worktreePath, "rev-parse", "HEAD").trim();

    const r = await srv.api("POST", `/tasks/${task.id}/archive`);
    expect(r.status).toBe(202);
    expect(r.body.jobId).toMatch(/^job_/);
    const job = await waitForJob(srv.api, task.id, r.body.jobId, ["succeeded", "failed"]);
    expect(job).toMatchObject({ state: "succeeded", trigger: "archive", taskId: task.id, attempts: 1, lastError: null });

    expect(processGone(pid)).toBe(true);
    expect(existsSync(slot.worktreePath)).toBe(false);
    expect(gitSync(repo.path, "worktree", "list", "--porcelain")).not.toContain(slot.worktreePath);
    expect(gitSync(repo.path, "rev-parse", `refs/heads/${slot.worktreeBranch}`).trim()).toBe(head);
    const rows = await envRows(srv.api, task.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: "deleted", worktreeId: slot.worktreeId, worktreePath: slot.worktreePath, worktreeBranch: slot.worktreeBranch });
    // LC-8: the uncommitted file lives on a private ref, not on the branch.
    const saved = gitSync(repo.path, "for-each-ref", "--format=%(refname)", "refs/grove/archived/");
    expect(saved.trim()).toBe(`refs/grove/archived/${task.id}/${slot.branchSlug || "default"}`);
    expect(gitSync(repo.path, "show", `${saved.trim()}:wip.txt`)).toContain("uncommitted");
    expect(gitSync(repo.path, "ls-tree", "--name-only", slot.worktreeBranch)).not.toContain("wip.txt");

    const archived = (await srv.api("GET", `/tasks/${task.id}`)).body;
    expect(archived.archivedAt).not.toBeNull();
    expect((await srv.api("GET", "/tasks?archived=true")).body.map((t: any) => t.id)).toContain(task.id);
    // An archived task takes no new session.
    const refused = await srv.api("POST", `/tasks/${task.id}/sessions`, {});
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe("task_archived");
  });

  it("LC-5 LC-8: unarchive, then a new session recreates the worktree on the same branch with its commits and the saved uncommitted work", async () => {
    const srv = await perFile.start();
    const { task, slot } = await taskWithSession(srv);
    const head = gitSync(slot.worktreePath, "rev-parse", "HEAD").trim();
    const r = await srv.api("POST", `/tasks/${task.id}/archive`);
    await waitForJob(srv.api, task.id, r.body.jobId, ["succeeded"]);

    const u = await srv.api("POST", `/tasks/${task.id}/unarchive`);
    expect(u.status).toBe(200);
    expect(u.body.archivedAt).toBeNull();
    const s = await srv.api("POST", `/tasks/${task.id}/sessions`, { prompt: "say back" });
    expect(s.status).toBe(201);
    await waitForSession(srv.api, s.body.id, ["waiting_for_input"]);
    expect(gitSync(slot.worktreePath, "rev-parse", "--abbrev-ref", "HEAD").trim()).toBe(slot.worktreeBranch);
    expect(gitSync(slot.worktreePath, "rev-parse", "HEAD").trim()).toBe(head);
    expect(readFileSync(`${slot.worktreePath}/wip.txt`, "utf8")).toContain("uncommitted");
    expect(gitSync(slot.worktreePath, "status", "--porcelain")).toContain("?? wip.txt");
    const rows = await envRows(srv.api, task.id);
    expect(rows[0]).toMatchObject({ status: "active", worktreeId: slot.worktreeId, worktreePath: slot.worktreePath });
    expect(gitSync(slot.worktreePath, "for-each-ref", "refs/grove/archived/").trim()).toBe("");
  });

  it("LC-5: unarchive cancels a pending archive job; nothing is removed", async () => {
    const srv = await perFile.start();
    const { task, slot } = await taskWithSession(srv);
    // Hold the worker so the job stays pending: its clock is far in the past.
    srv.server.orchestrator.cleanup.clock = () => Date.parse("2000-01-01T00:00:00Z");
    const r = await srv.api("POST", `/tasks/${task.id}/archive`);
    expect(r.status).toBe(202);
    expect((await jobsOf(srv.api, task.id))[0].state).toBe("pending");
    const u = await srv.api("POST", `/tasks/${task.id}/unarchive`);
    expect(u.status).toBe(200);
    expect((await jobsOf(srv.api, task.id))[0].state).toBe("cancelled");
    srv.server.orchestrator.cleanup.clock = () => Date.now();
    expect(await srv.server.orchestrator.cleanup.runDue()).toBe(0);
    expect(existsSync(`${slot.worktreePath}/wip.txt`)).toBe(true);
    expect((await envRows(srv.api, task.id))[0].status).toBe("active");
    const s = await srv.api("POST", `/tasks/${task.id}/sessions`, {});
    expect(s.status).toBe(201);
  });

  it("LC-7: a worktree directory removed by hand does not block archive", async () => {
    const srv = await perFile.start();
    const { task, slot, session, repo } = await taskWithSession(srv);
    await srv.server.deps.agents.stop(session.id);
    await rm(slot.worktreePath, { recursive: true, force: true });
    const r = await srv.api("POST", `/tasks/${task.id}/archive`);
    const job = await waitForJob(srv.api, task.id, r.body.jobId, ["succeeded", "failed", "retry_wait"]);
    expect(job.state).toBe("succeeded");
    expect(gitSync(repo.path, "worktree", "list", "--porcelain")).not.toContain(slot.worktreePath);
    expect(gitSync(repo.path, "branch", "--list", slot.worktreeBranch).trim()).not.toBe("");
    expect((await envRows(srv.api, task.id))[0].status).toBe("deleted");
  });

  it("LC-2: cleanup_job.updated events carry the CleanupJob shape", async () => {
    const srv = await perFile.start();
    const { task } = await taskWithSession(srv, "say hi");
    const seen: any[] = [];
    const off = srv.server.deps.bus.subscribe((f) => {
      if (f.type === "cleanup_job.updated") seen.push(f.data);
    });
    const r = await srv.api("POST", `/tasks/${task.id}/archive`);
    await waitForJob(srv.api, task.id, r.body.jobId, ["succeeded"]);
    off();
    expect(seen.map((d) => d.job.state)).toEqual(["prepared", "pending", "running", "succeeded"]);
    expect(Object.keys(seen[3].job).sort()).toEqual(["attempts", "createdAt", "id", "lastError", "nextRunAt", "state", "taskId", "trigger", "updatedAt"]);
  });
});
