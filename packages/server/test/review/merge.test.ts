import { existsSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { mergeTestHooks } from "../../src/orchestrator/review/review-merge.js";
import { DATABASES } from "../fixture/db.js";
import { gitSync, makeRepo, type TestRepo } from "../fixture/git.js";
import { startTestServer, type TestServer } from "../fixture/server.js";
import { reviewTask } from "./helpers.js";

describe.each(DATABASES)("merge into the base (%s)", (kind) => {
  let srv: TestServer;
  let repo: TestRepo;
  const main = () => repo.git("rev-parse", "refs/heads/main").trim();
  const onMain = (file: string, content: string) => {
    writeFileSync(join(repo.path, file), content);
    repo.git("add", "-A");
    repo.git("commit", "-q", "-m", `main: ${file}`);
    return main();
  };
  const task = (prompt: string) => reviewTask(srv, { repo, prompt, title: `merge ${Math.random().toString(36).slice(2, 6)}` });
  const merge = (taskId: string, body: Record<string, unknown> = {}) => srv.api("POST", `/tasks/${taskId}/merge`, body);

  beforeAll(async () => {
    srv = await startTestServer(kind);
    repo = await makeRepo({ name: `mergerepo-${kind}`, files: { "a.txt": "1\n2\n3\n" } });
  }, 60_000);
  afterAll(async () => {
    mergeTestHooks.beforeBaseMove = undefined;
    await srv?.close();
    await repo?.cleanup();
  });

  test("RV-4 merge: strategy merge into main checked out in a clean checkout; the checkout ends on the new commit, clean; task done", async () => {
    const t = await task("write f1.txt F1\ncommit task: f1");
    const taskHead = gitSync(t.worktree, "rev-parse", "HEAD").trim();
    const before = onMain("m1.txt", "M1\n");
    const r = await merge(t.task.id);
    expect(r.status).toBe(200);
    const c = r.body.results[0].commit;
    expect(r.body.results).toEqual([{ repositoryId: t.repository.id, repositoryName: t.repository.name, baseBranch: "main", commit: c }]);
    expect(main()).toBe(c);
    expect(repo.git("rev-list", "--parents", "-n", "1", c).trim().split(" ").slice(1)).toEqual([before, taskHead]);
    expect(repo.git("rev-parse", "HEAD").trim()).toBe(c);
    expect(repo.git("status", "--porcelain")).toBe("");
    expect(readFileSync(join(repo.path, "f1.txt"), "utf8")).toBe("F1");
    expect((await srv.api("GET", `/tasks/${t.task.id}`)).body).toMatchObject({ state: "done", archivedAt: null });
  });

  test("RV-4 merge: squash makes one commit on top of the base with the task's tree", async () => {
    const t = await task("write s1.txt S1\ncommit one\nwrite s2.txt S2\ncommit two");
    const before = onMain("m2.txt", "M2\n");
    const r = await merge(t.task.id, { strategy: "squash", message: "Squashed work" });
    expect(r.status).toBe(200);
    const c = r.body.results[0].commit;
    expect(repo.git("rev-list", "--parents", "-n", "1", c).trim().split(" ").slice(1)).toEqual([before]);
    expect(repo.git("log", "-1", "--format=%s", c).trim()).toBe("Squashed work");
    expect(repo.git("diff-tree", "--no-commit-id", "--name-only", "-r", c).trim().split("\n").sort()).toEqual(["s1.txt", "s2.txt"]);
    expect(repo.git("rev-parse", "HEAD").trim()).toBe(c);
    expect(repo.git("status", "--porcelain")).toBe("");
  });

  test("RV-4 merge: fast_forward moves main to the task head; refused when main has moved on", async () => {
    const t = await task("write ff.txt FF\ncommit ff");
    const head = gitSync(t.worktree, "rev-parse", "HEAD").trim();
    const r = await merge(t.task.id, { strategy: "fast_forward" });
    expect(r.status).toBe(200);
    expect(main()).toBe(head);
    expect(repo.git("rev-parse", "HEAD").trim()).toBe(head);
    expect(existsSync(join(repo.path, "ff.txt"))).toBe(true);
    const t2 = await task("write ff2.txt FF2\ncommit ff2");
    const moved = onMain("m3.txt", "M3\n");
    const refused = await merge(t2.task.id, { strategy: "fast_forward" });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe("merge_not_fast_forward");
    expect(main()).toBe(moved);
  });

  test("RV-4.3 merge into a clean checkout whose index is stale (a tracked file saved again with the same bytes, a later mtime): the merge lands and brings the checkout along", async () => {
    onMain("saved.txt", "as before\n");
    const t = await task("write saved.txt from the task\ncommit task: saved");
    // An editor's save without a change: the same content, a later mtime; the index keeps the old stat data.
    const saved = join(repo.path, "saved.txt");
    writeFileSync(saved, readFileSync(saved));
    const later = new Date(Date.now() + 10_000);
    utimesSync(saved, later, later);
    const r = await merge(t.task.id);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const c = r.body.results[0].commit;
    expect(main()).toBe(c);
    expect(repo.git("rev-parse", "HEAD").trim()).toBe(c);
    expect(readFileSync(saved, "utf8")).toBe("from the task");
    expect(repo.git("status", "--porcelain")).toBe("");
  });

  test("RV-4 merge: into main checked out in a dirty checkout → 409 base_checkout_dirty, nothing moved", async () => {
    const t = await task("write d.txt D\ncommit d");
    const before = main();
    writeFileSync(join(repo.path, "a.txt"), "1\n2 local edit\n3\n");
    const r = await merge(t.task.id);
    expect(r.status).toBe(409);
    expect(r.body.error).toMatchObject({ code: "base_checkout_dirty", details: { repositoryId: t.repository.id, taskId: t.task.id } });
    expect(main()).toBe(before);
    expect(readFileSync(join(repo.path, "a.txt"), "utf8")).toBe("1\n2 local edit\n3\n");
    expect((await srv.api("GET", `/tasks/${t.task.id}`)).body.state).not.toBe("done");
    repo.git("checkout", "--", "a.txt");
    // An untracked file the merge would overwrite is local work too.
    writeFileSync(join(repo.path, "d.txt"), "mine\n");
    expect((await merge(t.task.id)).body.error.code).toBe("base_checkout_dirty");
    expect(main()).toBe(before);
    repo.git("clean", "-fdq");
  });

  test("RV-4.3 a file the merge writes, edited in the base checkout after the check (read-tree refuses) → the ref moves back, 409 base_checkout_dirty, the edit kept, nothing moved; once the file is gone the retry merges", async () => {
    const t = await task("write late.txt from the task\ncommit late");
    const before = main();
    mergeTestHooks.beforeBaseMove = async () => {
      mergeTestHooks.beforeBaseMove = undefined;
      // After the dirty check, before the ref moves: the person saves a file the merge writes.
      writeFileSync(join(repo.path, "late.txt"), "mine, unsaved in git\n");
    };
    const r = await merge(t.task.id);
    expect(r.status, JSON.stringify(r.body)).toBe(409);
    expect(r.body.error).toMatchObject({
      code: "base_checkout_dirty",
      details: { repositoryId: t.repository.id, taskId: t.task.id, checkout: repo.path },
    });
    expect(r.body.error.message).toContain("late.txt");
    // Nothing moved: the ref, the checkout's HEAD and index, and the person's file.
    expect(main()).toBe(before);
    expect(repo.git("rev-parse", "HEAD").trim()).toBe(before);
    expect(repo.git("status", "--porcelain")).toBe("?? late.txt\n");
    expect(readFileSync(join(repo.path, "late.txt"), "utf8")).toBe("mine, unsaved in git\n");
    expect(repo.git("reflog", "-2", "--format=%gs", "refs/heads/main")).toContain("grove: undo merge");
    expect((await srv.api("GET", `/tasks/${t.task.id}`)).body.state).not.toBe("done");
    repo.git("clean", "-fdq");
    const again = await merge(t.task.id);
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(main()).toBe(again.body.results[0].commit);
    expect(readFileSync(join(repo.path, "late.txt"), "utf8")).toBe("from the task");
    expect(repo.git("status", "--porcelain")).toBe("");
  });

  test("RV-4 merge: conflicts → 409 merge_conflict with the paths, nothing moved", async () => {
    const t = await task("write a.txt 1\\n2-task\\n3\\n\ncommit task a");
    const before = onMain("a.txt", "1\n2-main\n3\n");
    const objects = repo.git("count-objects").trim();
    const r = await merge(t.task.id);
    expect(r.status).toBe(409);
    expect(r.body.error).toMatchObject({ code: "merge_conflict", details: { conflicts: ["a.txt"], repositoryId: t.repository.id } });
    expect(main()).toBe(before);
    expect(repo.git("status", "--porcelain")).toBe("");
    expect(objects).toBeTruthy();
  });

  test("RV-4 merge: a concurrent move of main between compute and move → CAS refusal, nothing lost", async () => {
    const t = await task("write cas.txt CAS\ncommit cas");
    let concurrent = "";
    mergeTestHooks.beforeBaseMove = async () => {
      mergeTestHooks.beforeBaseMove = undefined;
      concurrent = onMain("race.txt", "someone else\n");
    };
    const r = await merge(t.task.id);
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe("base_moved");
    expect(main()).toBe(concurrent);
    expect(repo.git("status", "--porcelain")).toBe("");
    expect(readFileSync(join(repo.path, "race.txt"), "utf8")).toBe("someone else\n");
    const again = await merge(t.task.id);
    expect(again.status).toBe(200);
    expect(repo.git("rev-parse", `${again.body.results[0].commit}^1`).trim()).toBe(concurrent);
  });

  test("RV-4.5: uncommitted work in the task's worktree → 409 uncommitted_changes naming the fix, nothing moved; leaveUncommitted merges the commits and the work stays", async () => {
    const t = await task("write c1.txt C1\ncommit c1\nwrite c2.txt C2");
    const before = main();
    const r = await merge(t.task.id);
    expect(r.status).toBe(409);
    expect(r.body.error).toMatchObject({ code: "uncommitted_changes", details: { taskId: t.task.id, repositoryId: t.repository.id } });
    expect(r.body.error.details.fix).toContain("--leave-uncommitted");
    expect(main()).toBe(before);
    expect((await srv.api("GET", `/tasks/${t.task.id}`)).body.state).not.toBe("done");
    const ok = await merge(t.task.id, { leaveUncommitted: true });
    expect(ok.status).toBe(200);
    expect(repo.git("show", `${main()}:c1.txt`)).toBe("C1");
    expect(repo.git("ls-tree", "--name-only", main()).split("\n")).not.toContain("c2.txt");
    expect(readFileSync(join(t.worktree, "c2.txt"), "utf8")).toBe("C2");
  });

  test("RV-4.6: a branch whose changes the base already holds (squashed before) merges nothing: no empty merge commit", async () => {
    const t = await task("write q1.txt Q1\ncommit q1");
    const squashed = await merge(t.task.id, { strategy: "squash" });
    expect(squashed.status).toBe(200);
    const after = main();
    const again = await merge(t.task.id);
    expect(again.status).toBe(200);
    expect(again.body.results[0]).toMatchObject({ commit: after, upToDate: true });
    expect(main()).toBe(after);
  });
});
