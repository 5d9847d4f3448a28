import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ONE_DATABASE } from "../fixture/db.js";
import { gitSync } from "../fixture/git.js";
import { startTestServer, waitForSession, type TestServer } from "../fixture/server.js";
import { reviewTask, snapshot } from "./helpers.js";

describe.each(ONE_DATABASE)("update from base (%s)", (kind) => {
  let srv: TestServer;
  let t: Awaited<ReturnType<typeof reviewTask>>;
  const update = (body: Record<string, unknown> = {}) => srv.api("POST", `/tasks/${t.task.id}/update-from-base`, body);
  const agent = async (prompt: string) => {
    expect((await srv.api("POST", `/sessions/${t.session.id}/prompt`, { prompt })).status).toBe(202);
    await waitForSession(srv.api, t.session.id, ["waiting_for_input"]);
  };
  /** A commit on main in the person's checkout. */
  const onMain = (file: string, content: string) => {
    writeFileSync(join(t.repo.path, file), content);
    t.repo.git("add", "-A");
    t.repo.git("commit", "-q", "-m", `main: ${file}`);
    return t.repo.git("rev-parse", "HEAD").trim();
  };

  beforeAll(async () => {
    srv = await startTestServer(kind);
    t = await reviewTask(srv, { files: { "a.txt": "1\n2\n3\n" }, prompt: "write b.txt B\ncommit task: add b" });
  }, 60_000);
  afterAll(async () => srv?.close());

  test("RV-3 update: up to date, with the backup ref written first", async () => {
    const head = gitSync(t.worktree, "rev-parse", "HEAD").trim();
    const r = await update();
    expect(r.status).toBe(200);
    expect(r.body.results).toEqual([{ repositoryId: t.repository.id, outcome: "up_to_date", backupRef: `refs/grove/backup/${t.task.id}/1`, commit: head }]);
    expect(gitSync(t.repo.path, "rev-parse", `refs/grove/backup/${t.task.id}/1`).trim()).toBe(head);
  });

  test("RV-3 update: a fast rebase onto the new base keeps the task's commit", async () => {
    const head = gitSync(t.worktree, "rev-parse", "HEAD").trim();
    const mainTip = onMain("c.txt", "C\n");
    const r = await update();
    expect(r.status).toBe(200);
    expect(r.body.results[0]).toMatchObject({ outcome: "updated", backupRef: `refs/grove/backup/${t.task.id}/2` });
    expect(gitSync(t.worktree, "rev-parse", "HEAD^").trim()).toBe(mainTip);
    expect(gitSync(t.worktree, "log", "-1", "--format=%s").trim()).toBe("task: add b");
    expect(gitSync(t.repo.path, "rev-parse", r.body.results[0].backupRef).trim()).toBe(head);
  });

  test("RV-3 update: a dirty worktree is refused; autostash carries the edit across", async () => {
    writeFileSync(join(t.worktree, "b.txt"), "B edited\n");
    const before = snapshot(t.worktree);
    const r = await update();
    expect(r.status).toBe(409);
    expect(r.body.error).toMatchObject({ code: "dirty_worktree", details: { taskId: t.task.id, repositoryId: t.repository.id } });
    expect(snapshot(t.worktree)).toEqual(before);
    const mainTip = onMain("d.txt", "D\n");
    const s = await update({ autostash: true });
    expect(s.status).toBe(200);
    expect(s.body.results[0].outcome).toBe("updated");
    expect(gitSync(t.worktree, "rev-parse", "HEAD^").trim()).toBe(mainTip);
    expect(gitSync(t.worktree, "status", "--porcelain").trim()).toBe("M b.txt");
    await srv.api("POST", `/tasks/${t.task.id}/commit`, { message: "task: edit b" });
  });

  test("RV-3 update: a real conflict is aborted with branch, index and files byte-identical, backup ref present", async () => {
    await agent("write a.txt 1\\n2-task\\n3\ncommit task: line 2");
    onMain("a.txt", "1\n2-main\n3\n");
    const before = snapshot(t.worktree);
    const refsBefore = gitSync(t.repo.path, "for-each-ref", "--format=%(refname) %(objectname)", "refs/heads/");
    const r = await update();
    expect(r.status).toBe(409);
    expect(r.body.error).toMatchObject({ code: "merge_conflict", details: { conflicts: ["a.txt"], repositoryId: t.repository.id, taskId: t.task.id } });
    const backupRef = r.body.error.details.backupRef as string;
    expect(gitSync(t.repo.path, "rev-parse", backupRef).trim()).toBe(before.head);
    expect(snapshot(t.worktree)).toEqual(before);
    expect(gitSync(t.repo.path, "for-each-ref", "--format=%(refname) %(objectname)", "refs/heads/")).toBe(refsBefore);
    const changes = (await srv.api("GET", `/tasks/${t.task.id}/changes`)).body;
    expect(changes.repositories[0].files.some((f: any) => f.status === "conflicted")).toBe(false);
  });

  test("RV-3 update: keepConflicts leaves them (Changes show conflicted); continue after resolving finishes", async () => {
    const r = await update({ keepConflicts: true });
    expect(r.status).toBe(200);
    expect(r.body.results[0]).toMatchObject({ outcome: "conflicts", conflicts: ["a.txt"] });
    const changes = (await srv.api("GET", `/tasks/${t.task.id}/changes`)).body;
    expect(changes.repositories[0].files.find((f: any) => f.path === "a.txt").status).toBe("conflicted");
    expect((await update()).body.error.code).toBe("update_in_progress");
    const early = await srv.api("POST", `/tasks/${t.task.id}/update-from-base/continue`, { repositoryId: t.repository.id });
    expect(early.status).toBe(409);
    expect(early.body.error).toMatchObject({ code: "conflicts_unresolved", details: { conflicts: ["a.txt"] } });
    writeFileSync(join(t.worktree, "a.txt"), "1\n2-both\n3\n");
    const c = await srv.api("POST", `/tasks/${t.task.id}/update-from-base/continue`, { repositoryId: t.repository.id });
    expect(c.status).toBe(200);
    expect(c.body.results[0].outcome).toBe("updated");
    expect(gitSync(t.worktree, "show", "HEAD:a.txt")).toBe("1\n2-both\n3\n");
    expect(gitSync(t.worktree, "merge-base", "--is-ancestor", "main", "HEAD")).toBe("");
    expect(gitSync(t.worktree, "status", "--porcelain")).toBe("");
  });

  test("RV-3 update: keepConflicts then abort restores branch, index and files exactly", async () => {
    onMain("a.txt", "1\n2-main-again\n3\n");
    const before = snapshot(t.worktree);
    const r = await update({ keepConflicts: true });
    expect(r.body.results[0].outcome).toBe("conflicts");
    expect(gitSync(t.worktree, "status", "--porcelain")).toContain("UU a.txt");
    const a = await srv.api("POST", `/tasks/${t.task.id}/update-from-base/abort`, { repositoryId: t.repository.id });
    expect(a.status).toBe(200);
    expect(a.body.results[0]).toMatchObject({ outcome: "aborted", commit: before.head });
    expect(snapshot(t.worktree)).toEqual(before);
    expect((await srv.api("POST", `/tasks/${t.task.id}/update-from-base/abort`, { repositoryId: t.repository.id })).body.error.code).toBe(
      "update_not_in_progress",
    );
  });

  test("RV-3 update: merge mode makes a merge commit with the base as second parent", async () => {
    writeFileSync(join(t.worktree, "a.txt"), "1\n2-main-again\n3\n");
    await srv.api("POST", `/tasks/${t.task.id}/commit`, { message: "task: take main's line" });
    const mainTip = onMain("e.txt", "E\n");
    const r = await update({ mode: "merge" });
    expect(r.status).toBe(200);
    expect(r.body.results[0].outcome).toBe("updated");
    expect(gitSync(t.worktree, "rev-parse", "HEAD^2").trim()).toBe(mainTip);
  });
});
