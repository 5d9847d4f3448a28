import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { crashServers, type CrashServer } from "../fixture/crash.js";
import { DATABASES } from "../fixture/db.js";
import { gitSync, makeRepo } from "../fixture/git.js";
import { waitForSession } from "../fixture/server.js";

/** Crash safety with the real `grove serve`, fault points and kill -9 (orchestrator/lifecycle/lifecycle-fault.ts). */
describe.each(DATABASES)("review crash safety (%s)", { timeout: 240_000 }, (kind) => {
  const crash = crashServers(kind);

  async function setup(fault: string, prompt: string) {
    const { start } = await crash.home();
    const first = await start(fault);
    const repo = await makeRepo({ files: { "a.txt": "1\n2\n3\n" } });
    crash.cleanups.push(repo.cleanup);
    const r = await first.api("POST", "/repositories", { path: repo.path });
    const t = await first.api("POST", "/tasks", { title: "crash review", repositories: [{ repositoryId: r.body.id }] });
    const s = await first.api("POST", `/tasks/${t.body.id}/sessions`, { prompt });
    await waitForSession(first.api, s.body.id, ["waiting_for_input"]);
    const ws = (await first.api("GET", `/sessions/${s.body.id}/workspace`)).body;
    return { start, first, repo, taskId: t.body.id as string, repositoryId: r.body.id as string, worktree: ws.repositories[0].worktreePath as string };
  }
  const onMain = (repoPath: string, file: string, content: string) => {
    writeFileSync(join(repoPath, file), content);
    gitSync(repoPath, "add", "-A");
    gitSync(repoPath, "commit", "-q", "-m", `main: ${file}`);
  };
  const crashAt = async (first: CrashServer, path: string, body: unknown) => {
    await first.api("POST", path, body).catch(() => undefined);
    await first.server.exited;
  };

  it("RV-6 crash: exit after the backup ref, before the rebase → old state with the backup ref; doctor clean", async () => {
    const { start, first, repo, taskId, worktree } = await setup("update.after_backup:exit", "write b.txt B\ncommit b");
    const head = gitSync(worktree, "rev-parse", "HEAD").trim();
    onMain(repo.path, "c.txt", "C\n");
    await crashAt(first, `/tasks/${taskId}/update-from-base`, {});
    const second = await start();
    expect(gitSync(worktree, "rev-parse", "HEAD").trim()).toBe(head);
    expect(gitSync(repo.path, "rev-parse", `refs/grove/backup/${taskId}/1`).trim()).toBe(head);
    const doctor = (await second.api("GET", "/doctor")).body;
    expect(doctor.findings.filter((f: any) => f.kind === "rebase_in_progress")).toEqual([]);
    const again = await second.api("POST", `/tasks/${taskId}/update-from-base`, {});
    expect(again.body.results[0]).toMatchObject({ outcome: "updated", backupRef: `refs/grove/backup/${taskId}/2` });
  });

  it("RV-6 crash: kill in the middle of a conflicted rebase → backup ref present, doctor reports the rebase, abort restores", async () => {
    const { start, first, repo, taskId, repositoryId, worktree } = await setup("update.after_conflict:exit", "write a.txt 1\\n2-task\\n3\\n\ncommit task a");
    const head = gitSync(worktree, "rev-parse", "HEAD").trim();
    onMain(repo.path, "a.txt", "1\n2-main\n3\n");
    await crashAt(first, `/tasks/${taskId}/update-from-base`, {});
    const second = await start();
    expect(gitSync(repo.path, "rev-parse", `refs/grove/backup/${taskId}/1`).trim()).toBe(head);
    const doctor = (await second.api("GET", "/doctor")).body;
    expect(doctor.ok).toBe(false);
    expect(doctor.findings).toContainEqual(
      expect.objectContaining({ kind: "rebase_in_progress", taskId, repositoryId, actual: "rebase", expected: `refs/grove/backup/${taskId}/1` }),
    );
    const a = await second.api("POST", `/tasks/${taskId}/update-from-base/abort`, { repositoryId });
    expect(a.status).toBe(200);
    expect(gitSync(worktree, "rev-parse", "HEAD").trim()).toBe(head);
    expect(gitSync(worktree, "status", "--porcelain")).toBe("");
    expect((await second.api("GET", "/doctor")).body.findings.filter((f: any) => f.kind === "rebase_in_progress")).toEqual([]);
  });

  it("RV-6 crash: exit after the merge is computed, before the base moves → old state", async () => {
    const { start, first, repo, taskId } = await setup("merge.after_compute:exit", "write m.txt M\ncommit m");
    const main = gitSync(repo.path, "rev-parse", "main").trim();
    await crashAt(first, `/tasks/${taskId}/merge`, {});
    const second = await start();
    expect(gitSync(repo.path, "rev-parse", "main").trim()).toBe(main);
    expect(gitSync(repo.path, "status", "--porcelain")).toBe("");
    expect((await second.api("GET", `/tasks/${taskId}`)).body.state).not.toBe("done");
  });

  it("RV-6 crash: exit right after the base ref moved → the new state (the merge commit is the base)", async () => {
    const { start, first, repo, taskId, worktree } = await setup("merge.after_ref_update:exit", "write m.txt M\ncommit m");
    // The person's checkout is elsewhere: only the ref is the state here.
    gitSync(repo.path, "checkout", "-q", "--detach");
    const taskHead = gitSync(worktree, "rev-parse", "HEAD").trim();
    await crashAt(first, `/tasks/${taskId}/merge`, { strategy: "fast_forward" });
    await start();
    expect(gitSync(repo.path, "rev-parse", "main").trim()).toBe(taskHead);
  });
});
