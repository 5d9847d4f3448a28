import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ONE_DATABASE } from "../fixture/db.js";
import { gitSync } from "../fixture/git.js";
import { startTestServer, waitForSession, type TestServer } from "../fixture/server.js";
import { reviewTask } from "./helpers.js";

/** Every ref of the repository except the task branch, with its commit. */
function otherRefs(repoPath: string, branch: string): string {
  return gitSync(repoPath, "for-each-ref", "--format=%(refname) %(objectname)")
    .split("\n")
    .filter((l) => l && !l.startsWith(`refs/heads/${branch} `))
    .join("\n");
}

describe.each(ONE_DATABASE)("commit as the person (%s)", (kind) => {
  let srv: TestServer;
  let t: Awaited<ReturnType<typeof reviewTask>>;

  beforeAll(async () => {
    srv = await startTestServer(kind);
    t = await reviewTask(srv, { files: { "x.txt": "x\n", "keep.txt": "keep\n" }, prompt: "write a.txt A\nappend x.txt more\ndelete keep.txt" });
  }, 60_000);
  afterAll(async () => srv?.close());

  test("RV-2 commit: the commit holds exactly the uncommitted files; nothing else in the repository moves", async () => {
    const before = gitSync(t.worktree, "rev-parse", "HEAD").trim();
    const refs = otherRefs(t.repo.path, t.branch);
    const checkout = gitSync(t.repo.path, "status", "--porcelain");
    const r = await srv.api("POST", `/tasks/${t.task.id}/commit`, { message: "Person's commit\n\nwith a body" });
    expect(r.status).toBe(201);
    expect(r.body.results).toEqual([{ repositoryId: t.repository.id, commit: expect.stringMatching(/^[0-9a-f]{40}$/) }]);
    const c = r.body.results[0].commit;
    expect(gitSync(t.worktree, "rev-parse", "HEAD").trim()).toBe(c);
    expect(gitSync(t.worktree, "rev-parse", `${c}^`).trim()).toBe(before);
    expect(gitSync(t.worktree, "diff-tree", "--no-commit-id", "--name-status", "-r", c).trim().split("\n").sort()).toEqual([
      "A\ta.txt",
      "D\tkeep.txt",
      "M\tx.txt",
    ]);
    expect(gitSync(t.worktree, "log", "-1", "--format=%an <%ae>|%B", c).trim()).toBe("Grove Test <test@grove.invalid>|Person's commit\n\nwith a body");
    expect(gitSync(t.worktree, "status", "--porcelain")).toBe("");
    expect(otherRefs(t.repo.path, t.branch)).toBe(refs);
    expect(gitSync(t.repo.path, "status", "--porcelain")).toBe(checkout);
    const again = await srv.api("POST", `/tasks/${t.task.id}/commit`, { message: "again" });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("nothing_to_commit");
  });

  test("RV-2 commit: listed paths only; the rest stays uncommitted", async () => {
    const p = await srv.api("POST", `/sessions/${t.session.id}/prompt`, { prompt: "write c.txt C\nwrite d.txt D" });
    expect(p.status).toBe(202);
    await waitForSession(srv.api, t.session.id, ["waiting_for_input"]);
    const r = await srv.api("POST", `/tasks/${t.task.id}/commit`, { message: "only c", paths: ["c.txt"], repositoryId: t.repository.id });
    expect(r.status).toBe(201);
    expect(gitSync(t.worktree, "diff-tree", "--no-commit-id", "--name-only", "-r", r.body.results[0].commit).trim()).toBe("c.txt");
    expect(gitSync(t.worktree, "status", "--porcelain").trim()).toBe("?? d.txt");
    expect((await srv.api("POST", `/tasks/${t.task.id}/commit`, { message: "x", paths: ["../outside"] })).status).toBe(400);
  });

  test("RV-2 commit: hooks run (a failing pre-commit refuses, index restored); noVerify only when asked", async () => {
    const hook = join(t.repo.path, ".git", "hooks", "pre-commit");
    writeFileSync(hook, "#!/bin/sh\necho 'lint says no' >&2\nexit 1\n");
    chmodSync(hook, 0o755);
    const indexBefore = gitSync(t.worktree, "write-tree").trim();
    const head = gitSync(t.worktree, "rev-parse", "HEAD").trim();
    const r = await srv.api("POST", `/tasks/${t.task.id}/commit`, { message: "blocked" });
    expect(r.status).toBe(409);
    expect(r.body.error).toMatchObject({ code: "commit_rejected", details: { repositoryId: t.repository.id, taskId: t.task.id } });
    expect(r.body.error.details.output).toContain("lint says no");
    expect(gitSync(t.worktree, "rev-parse", "HEAD").trim()).toBe(head);
    expect(gitSync(t.worktree, "write-tree").trim()).toBe(indexBefore);
    expect(gitSync(t.worktree, "status", "--porcelain").trim()).toBe("?? d.txt");
    const forced = await srv.api("POST", `/tasks/${t.task.id}/commit`, { message: "asked to skip hooks", noVerify: true });
    expect(forced.status).toBe(201);
  });
});
