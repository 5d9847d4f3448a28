import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { crashServers } from "../fixture/crash.js";
import { DATABASES } from "../fixture/db.js";
import { gitSync, makeRepo } from "../fixture/git.js";
import { waitFor, waitForSession } from "../fixture/server.js";
import { jobsOf, waitForJob } from "./helpers.js";

/** Crash tests with the real `grove serve` and kill -9 (SEC-4, LC-4). Faults: see orchestrator/lifecycle/lifecycle-fault.ts. */
describe.each(DATABASES)("cleanup crash recovery (%s)", (kind) => {
  const crash = crashServers(kind);

  async function setup(fault: string) {
    const { start } = await crash.home();
    const first = await start(fault);
    const repo = await makeRepo();
    crash.cleanups.push(repo.cleanup);
    const r = await first.api("POST", "/repositories", { path: repo.path });
    const t = await first.api("POST", "/tasks", { title: "crash me", repositories: [{ repositoryId: r.body.id }] });
    const s = await first.api("POST", `/tasks/${t.body.id}/sessions`, { prompt: "write a.txt one\ncommit one\nwrite b.txt wip" });
    await waitForSession(first.api, s.body.id, ["waiting_for_input"]);
    const ws = (await first.api("GET", `/sessions/${s.body.id}/workspace`)).body;
    return { start, first, repo, taskId: t.body.id as string, sessionId: s.body.id as string, slot: ws.repositories[0] };
  }

  it("LC-4 SEC-4: kill -9 between reserving the job and committing the archive → after restart the job is cancelled and the task intact", async () => {
    const { start, first, taskId, slot } = await setup("archive.after_reserve:hang");
    void first.api("POST", `/tasks/${taskId}/archive`).catch(() => undefined); // hangs at the fault point
    await waitFor(async () => (await jobsOf(first.api, taskId))[0]?.state === "prepared", "job prepared");
    first.server.child.kill("SIGKILL");
    await first.server.exited;

    const second = await start();
    const jobs = await jobsOf(second.api, taskId);
    expect(jobs).toHaveLength(1);
    expect(jobs[0].state).toBe("cancelled");
    expect((await second.api("GET", `/tasks/${taskId}`)).body.archivedAt).toBeNull();
    expect(existsSync(`${slot.worktreePath}/b.txt`)).toBe(true);
    expect((await second.api("GET", `/tasks/${taskId}/environment`)).body.repositories[0].status).toBe("active");
    const s = await second.api("POST", `/tasks/${taskId}/sessions`, {});
    expect(s.status).toBe(201);
  });

  it("LC-4 SEC-4: kill -9 after the archive committed (job pending) → after restart the job is activated and runs to success", async () => {
    const { start, first, taskId, slot, repo } = await setup("archive.after_commit:exit");
    const r = await first.api("POST", `/tasks/${taskId}/archive`).catch(() => undefined);
    expect(r?.status ?? 0).not.toBe(202); // the process died before answering
    expect((await first.server.exited).code).toBe(137);

    const second = await start();
    const job = (await jobsOf(second.api, taskId))[0];
    const done = await waitForJob(second.api, taskId, job.id, ["succeeded", "failed"]);
    expect(done.state).toBe("succeeded");
    expect(existsSync(slot.worktreePath)).toBe(false);
    expect(gitSync(repo.path, "branch", "--list", slot.worktreeBranch).trim()).not.toBe("");
    expect(gitSync(repo.path, "show", `refs/grove/archived/${taskId}/${slot.branchSlug || "default"}:b.txt`)).toContain("wip");
  });

  it("LC-4 SEC-4: kill -9 while a job is running → after restart it runs again to success", async () => {
    const { start, first, taskId, slot, repo } = await setup("cleanup.after_claim:hang");
    // The archive request itself finishes; the worker hangs right after claiming.
    const r = await first.api("POST", `/tasks/${taskId}/archive`);
    expect(r.status).toBe(202);
    await waitForJob(first.api, taskId, r.body.jobId, ["running"]);
    first.server.child.kill("SIGKILL");
    await first.server.exited;

    const second = await start();
    const done = await waitForJob(second.api, taskId, r.body.jobId, ["succeeded", "failed"]);
    expect(done).toMatchObject({ state: "succeeded", attempts: 2 });
    expect(existsSync(slot.worktreePath)).toBe(false);
    expect(gitSync(repo.path, "worktree", "list", "--porcelain")).not.toContain(slot.worktreePath);
    expect(gitSync(repo.path, "log", "-1", "--format=%s", slot.worktreeBranch).trim()).toBe("one");
  });
});
