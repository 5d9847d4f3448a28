import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ONE_DATABASE } from "../fixture/db.js";
import { gitSync, tempDir } from "../fixture/git.js";
import { repoAndTask } from "../fixture/scenario.js";
import { startTestServer, waitForSession, type TestServer } from "../fixture/server.js";
import { drivenCleanupWorker, runDueAt, waitForJob } from "./helpers.js";

/** LC-8 saved work: exact restore, no earlier save ever lost, reset gives work back, copy-files kept. */
describe.each(ONE_DATABASE)("saved work (%s)", (kind) => {
  let srv: TestServer | undefined;
  afterEach(async () => {
    await srv?.close();
    srv = undefined;
  });

  const refOf = (taskId: string, slot: { branchSlug: string }): string => `refs/grove/archived/${taskId}/${slot.branchSlug || "default"}`;
  const refValue = (repoPath: string, ref: string): string | null => {
    const out = gitSync(repoPath, "for-each-ref", "--format=%(objectname)", ref).trim();
    return out === "" ? null : out;
  };

  /** Runs `prompt` in a new session of the task and waits for it; returns the session and its slot. */
  async function session(taskId: string, prompt: string): Promise<{ id: string; slot: any }> {
    const s = await srv!.api("POST", `/tasks/${taskId}/sessions`, { prompt });
    expect(s.status).toBe(201);
    await waitForSession(srv!.api, s.body.id, ["waiting_for_input"]);
    const ws = (await srv!.api("GET", `/sessions/${s.body.id}/workspace`)).body;
    return { id: s.body.id, slot: ws.repositories[0] };
  }

  async function prompt(sessionId: string, text: string): Promise<void> {
    const r = await srv!.api("POST", `/sessions/${sessionId}/prompt`, { prompt: text });
    expect(r.status).toBeLessThan(300);
    await waitForSession(srv!.api, sessionId, ["waiting_for_input"]);
  }

  async function lifecycle(taskId: string, op: "archive" | "environment/reset"): Promise<void> {
    const r = await srv!.api("POST", `/tasks/${taskId}/${op}`);
    expect(r.status).toBe(202);
    await waitForJob(srv!.api, taskId, r.body.jobId, ["succeeded"]);
  }

  async function systemTexts(sessionId: string): Promise<string[]> {
    const msgs = (await srv!.api("GET", `/sessions/${sessionId}/messages`)).body as { role: string; text: string }[];
    return msgs.filter((m) => m.role === "system").map((m) => m.text);
  }

  it("LC-8.1 modifications, deletions and new files come back exactly, as uncommitted changes on the branch", async () => {
    srv = await startTestServer(kind);
    const { task, repo } = await repoAndTask(srv, { files: { "gone.txt": "bye\n" } });
    const first = await session(task.id, "write README.md changed by the agent\ndelete gone.txt\nwrite new.txt fresh");
    const head = gitSync(first.slot.worktreePath, "rev-parse", "HEAD").trim();
    await lifecycle(task.id, "archive");
    const ref = refOf(task.id, first.slot);
    // The save is parented on the branch head, so it holds exactly the uncommitted changes.
    expect(gitSync(repo.path, "rev-parse", `${ref}^1`).trim()).toBe(head);
    expect(gitSync(repo.path, "diff", "--name-status", head, ref).trim().split("\n").sort()).toEqual(["A\tnew.txt", "D\tgone.txt", "M\tREADME.md"]);

    expect((await srv.api("POST", `/tasks/${task.id}/unarchive`)).status).toBe(200);
    const next = await session(task.id, "say back");
    const wt = next.slot.worktreePath as string;
    expect(readFileSync(join(wt, "README.md"), "utf8")).toBe("changed by the agent");
    expect(existsSync(join(wt, "gone.txt"))).toBe(false);
    expect(readFileSync(join(wt, "new.txt"), "utf8")).toBe("fresh");
    expect(gitSync(wt, "rev-parse", "HEAD").trim()).toBe(head);
    expect(gitSync(wt, "status", "--porcelain").split("\n").filter(Boolean).sort()).toEqual([" D gone.txt", " M README.md", "?? new.txt"]);
    expect(refValue(repo.path, ref)).toBeNull();
  });

  it("LC-8.2 a restore that fails is reported on the session and keeps the ref; a later save keeps the earlier one reachable", async () => {
    srv = await startTestServer(kind);
    const { task, repo } = await repoAndTask(srv);
    const first = await session(task.id, "write README.md agent version\nwrite w1.txt one");
    await lifecycle(task.id, "archive");
    const ref = refOf(task.id, first.slot);
    const c1 = refValue(repo.path, ref);
    expect(c1).not.toBeNull();
    // While archived, someone commits a conflicting README.md on the task branch.
    const side = join(await tempDir("grove-side-"), "wt");
    gitSync(repo.path, "worktree", "add", "-q", side, first.slot.worktreeBranch);
    writeFileSync(join(side, "README.md"), "a conflicting line\n");
    gitSync(side, "commit", "-q", "-am", "conflict");
    gitSync(repo.path, "worktree", "remove", side);

    expect((await srv.api("POST", `/tasks/${task.id}/unarchive`)).status).toBe(200);
    const second = await session(task.id, "say back");
    const wt = second.slot.worktreePath as string;
    expect((await systemTexts(second.id)).some((t) => t.includes(ref))).toBe(true);
    expect(refValue(repo.path, ref)).toBe(c1);
    expect(gitSync(wt, "status", "--porcelain").trim()).toBe("");
    expect(readFileSync(join(wt, "README.md"), "utf8")).toBe("a conflicting line\n");

    // New work is saved on top: the earlier save stays reachable from the ref (second parent).
    await prompt(second.id, "write w2.txt two");
    await lifecycle(task.id, "archive");
    const c2 = refValue(repo.path, ref);
    expect(c2).not.toBe(c1);
    expect(gitSync(repo.path, "rev-parse", `${ref}^2`).trim()).toBe(c1);
    expect(gitSync(repo.path, "show", `${ref}:w2.txt`)).toBe("two");

    // Unarchive: the newest save comes back; the ref goes back to the earlier, never-restored one.
    expect((await srv.api("POST", `/tasks/${task.id}/unarchive`)).status).toBe(200);
    const third = await session(task.id, "say back");
    expect(readFileSync(join(wt, "w2.txt"), "utf8")).toBe("two");
    expect(refValue(repo.path, ref)).toBe(c1);
    expect((await systemTexts(third.id)).some((t) => t.includes(ref))).toBe(true);
  });

  it("LC-8.3 work saved by an environment reset comes back in the next session and is not overwritten by the next archive", async () => {
    srv = await startTestServer(kind);
    const { task, repo } = await repoAndTask(srv);
    const first = await session(task.id, "write w1.txt one");
    await lifecycle(task.id, "environment/reset");
    const ref = refOf(task.id, first.slot);
    expect(gitSync(repo.path, "show", `${ref}:w1.txt`)).toBe("one");

    const second = await session(task.id, "say back");
    const wt = second.slot.worktreePath as string;
    expect(readFileSync(join(wt, "w1.txt"), "utf8")).toBe("one");
    expect(gitSync(wt, "status", "--porcelain").trim()).toBe("?? w1.txt");
    expect(refValue(repo.path, ref)).toBeNull();

    await prompt(second.id, "write w2.txt two");
    await lifecycle(task.id, "archive");
    expect(gitSync(repo.path, "show", `${ref}:w1.txt`)).toBe("one");
    expect(gitSync(repo.path, "show", `${ref}:w2.txt`)).toBe("two");
  });

  it("LC-8.2 a retried cleanup attempt does not stack a second copy of the same saved work", async () => {
    srv = await startTestServer(kind);
    const worker = await drivenCleanupWorker(srv);
    const { task, repo } = await repoAndTask(srv);
    const first = await session(task.id, "write w1.txt one");
    gitSync(repo.path, "worktree", "lock", first.slot.worktreePath);
    const r = await srv.api("POST", `/tasks/${task.id}/archive`);
    const job = await waitForJob(srv.api, task.id, r.body.jobId, ["retry_wait"]);
    const ref = refOf(task.id, first.slot);
    const saved = refValue(repo.path, ref);
    expect(saved).not.toBeNull();
    gitSync(repo.path, "worktree", "unlock", first.slot.worktreePath);
    expect(await runDueAt(worker, Date.parse(job.nextRunAt) + 1)).toBe(1);
    expect(refValue(repo.path, ref)).toBe(saved);

    worker.clock = () => Date.now();
    expect((await srv.api("POST", `/tasks/${task.id}/unarchive`)).status).toBe(200);
    const next = await session(task.id, "say back");
    expect(readFileSync(join(next.slot.worktreePath, "w1.txt"), "utf8")).toBe("one");
    expect(refValue(repo.path, ref)).toBeNull();
    expect(await systemTexts(next.id)).toEqual([]);
  });

  it("LC-8.4 an ignored copy-files file edited by the agent survives archive and reset", async () => {
    srv = await startTestServer(kind);
    const { task, repo, repository } = await repoAndTask(srv, { files: { ".gitignore": ".env\n" } });
    writeFileSync(join(repo.path, ".env"), "TOKEN=source\n");
    expect((await srv.api("PATCH", `/repositories/${repository.id}`, { copyFiles: [".env"] })).status).toBe(200);
    const first = await session(task.id, "write .env TOKEN=edited");
    const wt = first.slot.worktreePath as string;
    expect(gitSync(wt, "status", "--porcelain").trim()).toBe("");
    await lifecycle(task.id, "archive");
    const ref = refOf(task.id, first.slot);
    expect(gitSync(repo.path, "show", `${ref}:.env`)).toBe("TOKEN=edited");

    expect((await srv.api("POST", `/tasks/${task.id}/unarchive`)).status).toBe(200);
    const second = await session(task.id, "say back");
    expect(readFileSync(join(wt, ".env"), "utf8")).toBe("TOKEN=edited");
    expect(gitSync(wt, "status", "--porcelain").trim()).toBe("");
    expect(refValue(repo.path, ref)).toBeNull();

    // Reset: the new worktree gets the source's .env by copy-files; the saved, edited one wins.
    await lifecycle(task.id, "environment/reset");
    const third = await session(task.id, "say back");
    expect(readFileSync(join(wt, ".env"), "utf8")).toBe("TOKEN=edited");
    expect(refValue(repo.path, ref)).toBeNull();
    expect(await systemTexts(third.id)).toEqual([]);
    expect(second.id).not.toBe(third.id);
  });
});
