import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DATABASES } from "../fixture/db.js";
import { gitSync } from "../fixture/git.js";
import { startTestServer, type TestServer } from "../fixture/server.js";
import { branchesOf, linkedWorktrees, registerRepo } from "./helpers.js";

/** The pool's ready entries on disk for one repository (every base). */
function pooled(home: string, repositoryId: string): string[] {
  const root = join(home, "pool", repositoryId);
  const out: string[] = [];
  for (const base of (() => {
    try {
      return readdirSync(root);
    } catch {
      return [];
    }
  })()) {
    const names = readdirSync(join(root, base));
    for (const n of names)
      if (n.endsWith(".ready") && names.includes(n.slice(0, -6)) && !names.includes(n.replace(/\.ready$/, ".claim")))
        out.push(join(root, base, n.slice(0, -6)));
  }
  return out;
}

describe.each(DATABASES)("WT-10 worktree pool (%s)", (kind) => {
  let srv: TestServer | undefined;
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    await srv?.close();
    srv = undefined;
    for (const c of cleanups.splice(0)) await c();
  });

  it("WT-10 WT-3: a start from the pool is on its own branch at the base as it is now (a stale pooled checkout is moved), invisible as a task, doctor clean, refilled", async () => {
    srv = await startTestServer(kind, undefined, { GROVE_WORKTREE_POOL_SIZE: "2" });
    const { repo, id } = await registerRepo(srv, "pooled", {}, { "a.txt": "one\n" });
    cleanups.push(() => repo.cleanup());
    const pool = srv.server.deps.pool!;
    await pool.idle();
    const warm = pooled(srv.home, id);
    expect(warm).toHaveLength(2);
    // Pooled worktrees are no task's: not listed, and doctor is clean.
    expect(JSON.stringify((await srv.api("GET", "/tasks")).body)).not.toContain("task_");
    expect((await srv.api("GET", "/doctor")).body.ok).toBe(true);
    // The base moves on after the pool was filled: the start must not use the stale checkout.
    writeFileSync(join(repo.path, "a.txt"), "two\n");
    repo.git("commit", "-qam", "advance");
    const tip = repo.git("rev-parse", "main").trim();

    const t = await srv.api("POST", "/tasks", { title: "From the pool", repositories: [{ repositoryId: id }] });
    const s = await srv.api("POST", `/tasks/${t.body.id}/sessions`, {});
    expect(s.body.state).toBe("waiting_for_input");
    const ws = (await srv.api("GET", `/sessions/${s.body.id}/workspace`)).body;
    const slot = ws.repositories[0];
    expect(warm).not.toContain(slot.worktreePath);
    expect(gitSync(slot.worktreePath, "rev-parse", "HEAD").trim()).toBe(tip);
    expect(gitSync(slot.worktreePath, "symbolic-ref", "--short", "HEAD").trim()).toBe(slot.worktreeBranch);
    expect(readFileSync(join(slot.worktreePath, "a.txt"), "utf8")).toBe("two\n");
    expect(gitSync(slot.worktreePath, "status", "--porcelain")).toBe("");
    // The oldest pooled worktree became the task's (moved, not copied): one fewer ready until the refill.
    await pool.idle();
    expect(pooled(srv.home, id)).toHaveLength(2);
    expect(linkedWorktrees(repo)).toHaveLength(3);
    expect(linkedWorktrees(repo)).toContain(slot.worktreePath);
    const changes = (await srv.api("GET", `/tasks/${t.body.id}/changes`)).body;
    expect(changes.repositories).toHaveLength(1);
    expect(changes.repositories[0].files).toHaveLength(0);
    expect((await srv.api("GET", "/doctor")).body).toMatchObject({ ok: true, findings: [] });
    expect(branchesOf(repo)).toEqual(["main", slot.worktreeBranch].sort());

    // A pooled checkout already at the base's tip: only HEAD moves onto the new branch.
    const t2 = await srv.api("POST", "/tasks", { title: "At the tip", repositories: [{ repositoryId: id }] });
    const s2 = await srv.api("POST", `/tasks/${t2.body.id}/sessions`, {});
    expect(s2.body.state).toBe("waiting_for_input");
    const slot2 = (await srv.api("GET", `/sessions/${s2.body.id}/workspace`)).body.repositories[0];
    expect(gitSync(slot2.worktreePath, "symbolic-ref", "--short", "HEAD").trim()).toBe(slot2.worktreeBranch);
    expect(gitSync(slot2.worktreePath, "rev-parse", "HEAD").trim()).toBe(tip);
    expect(gitSync(slot2.worktreePath, "status", "--porcelain")).toBe("");
    expect(readFileSync(join(slot2.worktreePath, "a.txt"), "utf8")).toBe("two\n");
    await pool.idle();
    expect((await srv.api("GET", "/doctor")).body).toMatchObject({ ok: true, findings: [] });
  });

  it("WT-10: two claims racing for the one pooled worktree — exactly one gets it, the others get none (their launch checks out in full)", async () => {
    srv = await startTestServer(kind, undefined, { GROVE_WORKTREE_POOL_SIZE: "1" });
    const { repo, id } = await registerRepo(srv, "raced");
    cleanups.push(() => repo.cleanup());
    const pool = srv.server.deps.pool!;
    await pool.idle();
    const [only] = pooled(srv.home, id);
    const claim = (n: number) =>
      pool.claim({
        repoPath: repo.path,
        repositoryId: id,
        baseBranch: "main",
        taskId: `task_${n}`,
        worktreePath: join(srv!.home, "tasks", `race-${n}`, "raced"),
        branch: `race-${n}`,
        startPoint: "main",
      });
    const results = await Promise.all([claim(1), claim(2), claim(3)]);
    expect(results.filter((r) => r !== null)).toHaveLength(1);
    expect(linkedWorktrees(repo)).not.toContain(only);
    expect(linkedWorktrees(repo)).toHaveLength(1);
  });

  it("WT-10: GROVE_WORKTREE_POOL_SIZE=0 (the default) keeps no pool: a start checks out in full, nothing under pool/", async () => {
    srv = await startTestServer(kind, undefined, { GROVE_WORKTREE_POOL_SIZE: "0" });
    expect(srv.server.deps.pool).toBeUndefined();
    const { repo, id } = await registerRepo(srv, "unpooled");
    cleanups.push(() => repo.cleanup());
    const t = await srv.api("POST", "/tasks", { title: "No pool", repositories: [{ repositoryId: id }] });
    expect((await srv.api("POST", `/tasks/${t.body.id}/sessions`, {})).body.state).toBe("waiting_for_input");
    expect(pooled(srv.home, id)).toHaveLength(0);
    expect(linkedWorktrees(repo)).toHaveLength(1);
  });
});
