import { existsSync } from "node:fs";
import { mkdir, readdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { GitResult, GitRunOptions } from "../../src/git/run-options.js";
import { GitRunner } from "../../src/git/runner.js";
import { WorktreeManager } from "../../src/git/worktrees.js";
import { makeRepo, tempDir, type TestRepo } from "../fixture/git.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

async function setup(): Promise<{ repo: TestRepo; home: string; git: GitRunner; wt: WorktreeManager }> {
  const repo = await makeRepo({ files: { "src/a.ts": "export const a = 1;\n" } });
  const home = await tempDir("grove-home-");
  cleanups.push(repo.cleanup, () => rm(home, { recursive: true, force: true }));
  const git = new GitRunner();
  return { repo, home, git, wt: new WorktreeManager(git) };
}

const branches = (repo: TestRepo) => repo.git("for-each-ref", "--format=%(refname:short)", "refs/heads/").split("\n").filter(Boolean);

describe("WorktreeManager create/validate/remove (WT-1, WT-2, SES-3)", () => {
  it("WT-1 creates a worktree on a new branch in nested parent dirs and validates it", async () => {
    const { repo, home, wt } = await setup();
    const path = join(home, "tasks", "fix-bug-abc123", "repo");
    const res = await wt.create({ repoPath: repo.path, worktreePath: path, branch: "grove/fix-bug-1", startPoint: "main", newBranch: true });
    expect(res).toEqual({ createdBranch: true });
    expect(existsSync(join(path, "src/a.ts"))).toBe(true);
    expect(await wt.validate({ repoPath: repo.path, worktreePath: path, branch: "grove/fix-bug-1" })).toEqual({ ok: true });
    const list = await wt.list(repo.path);
    expect(list).toHaveLength(2);
    expect(list[1]).toMatchObject({ path, branch: "grove/fix-bug-1", locked: false, prunable: false });
    expect(list[1]!.head).toBe(repo.git("rev-parse", "main").trim());
  });

  it("WT-2 a worktree on a new branch is one `git worktree add` (git itself refuses an existing branch)", async () => {
    const { repo, home, git, wt } = await setup();
    await git.commonDir(repo.path); // the repository lock's key, known from registration in the server
    const before = git.spawnCount;
    await wt.create({ repoPath: repo.path, worktreePath: join(home, "tasks", "one", "repo"), branch: "grove/one", startPoint: "main", newBranch: true });
    expect(git.spawnCount - before).toBe(1);
  });

  it("WT-2 WT-7 a branch another process creates right before `git worktree add` is refused and never deleted", async () => {
    const { repo, home } = await setup();
    repo.git("commit", "-q", "--allow-empty", "-m", "theirs");
    const theirs = repo.git("rev-parse", "HEAD").trim();
    repo.git("reset", "-q", "--hard", "HEAD~1");
    // The other process wins the race: its branch appears right before our `worktree add` runs.
    class RacingGit extends GitRunner {
      override run(args: string[], opts: GitRunOptions): Promise<GitResult> {
        if (args[0] === "worktree" && args[1] === "add") repo.git("branch", "grove/raced", theirs);
        return super.run(args, opts);
      }
    }
    const wt = new WorktreeManager(new RacingGit());
    const path = join(home, "tasks", "raced", "repo");
    const err = await wt
      .create({ repoPath: repo.path, worktreePath: path, branch: "grove/raced", startPoint: "main", newBranch: true })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "branch_exists" });
    expect(repo.git("rev-parse", "refs/heads/grove/raced").trim()).toBe(theirs);
    expect(existsSync(path)).toBe(false);
  });

  it("WT-2 an existing branch is never silently reused", async () => {
    const { repo, home, wt } = await setup();
    repo.git("branch", "taken");
    const path = join(home, "t", "repo");
    const err = await wt.create({ repoPath: repo.path, worktreePath: path, branch: "taken", startPoint: "main", newBranch: true }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "branch_exists", status: 409 });
    expect(existsSync(path)).toBe(false);
    expect(await wt.list(repo.path)).toHaveLength(1);
  });

  it("WT-8 newBranch:false checks out an existing branch; a missing one is refused", async () => {
    const { repo, home, wt } = await setup();
    repo.git("branch", "feature/x");
    const path = join(home, "t", "repo-feature-x");
    expect(await wt.create({ repoPath: repo.path, worktreePath: path, branch: "feature/x", startPoint: "main", newBranch: false })).toEqual({
      createdBranch: false,
    });
    expect(await wt.validate({ repoPath: repo.path, worktreePath: path, branch: "feature/x" })).toEqual({ ok: true });
    const err = await wt
      .create({ repoPath: repo.path, worktreePath: join(home, "t", "y"), branch: "nope", startPoint: "main", newBranch: false })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "base_branch_not_found" });
  });

  it("SES-3 an existing path is refused with path_exists and left untouched", async () => {
    const { repo, home, wt } = await setup();
    const path = join(home, "occupied");
    await mkdir(path);
    await writeFile(join(path, "keep.txt"), "mine");
    const err = await wt.create({ repoPath: repo.path, worktreePath: path, branch: "grove/new", startPoint: "main", newBranch: true }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "workspace_reuse_unsafe", details: { reason: "path_exists" } });
    expect(await readdir(path)).toEqual(["keep.txt"]);
    expect(branches(repo)).toEqual(["main"]);
  });

  it("SEC-3 an option-looking branch is refused before git sees it", async () => {
    const { repo, home, wt } = await setup();
    const path = join(home, "inj");
    const err = await wt
      .create({ repoPath: repo.path, worktreePath: path, branch: "--upload-pack=x", startPoint: "main", newBranch: true })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "invalid_branch_name" });
    expect(existsSync(path)).toBe(false);
    expect(branches(repo)).toEqual(["main"]);
    // A start point that looks like an option follows `--` and is a (bad) revision, not an option.
    const err2 = await wt.create({ repoPath: repo.path, worktreePath: path, branch: "ok", startPoint: "--detach", newBranch: true }).catch((e: unknown) => e);
    expect(err2).toMatchObject({ code: "git_failed" });
    expect(existsSync(path)).toBe(false);
    expect(branches(repo)).toEqual(["main"]);
  });

  it("SES-3 validation reasons: missing, not_a_directory, not_a_worktree, wrong_branch, detached_head, wrong_repository", async () => {
    const { repo, home, git, wt } = await setup();
    const path = join(home, "t", "repo");
    await wt.create({ repoPath: repo.path, worktreePath: path, branch: "grove/a", startPoint: "main", newBranch: true });
    const v = (worktreePath: string, branch = "grove/a") => wt.validate({ repoPath: repo.path, worktreePath, branch });

    expect(await v(join(home, "nowhere"))).toMatchObject({ ok: false, reason: "missing" });
    await writeFile(join(home, "file"), "x");
    expect(await v(join(home, "file"))).toMatchObject({ ok: false, reason: "not_a_directory" });
    await mkdir(join(home, "plain"));
    expect(await v(join(home, "plain"))).toMatchObject({ ok: false, reason: "not_a_worktree" });
    // A subdirectory of the worktree is inside a work tree but is not the worktree.
    expect(await v(join(path, "src"))).toMatchObject({ ok: false, reason: "not_a_worktree" });

    const before = git.spawnCount;
    expect(await v(path)).toEqual({ ok: true });
    expect(git.spawnCount - before).toBeLessThanOrEqual(2);

    repo.git("-C", path, "switch", "-q", "-c", "elsewhere");
    expect(await v(path)).toMatchObject({ ok: false, reason: "wrong_branch" });
    repo.git("-C", path, "switch", "-q", "--detach");
    expect(await v(path)).toMatchObject({ ok: false, reason: "detached_head" });
    repo.git("-C", path, "switch", "-q", "grove/a");
    expect(await v(path)).toEqual({ ok: true });

    const other = await makeRepo({ name: "other" });
    cleanups.push(other.cleanup);
    const foreign = join(home, "t", "foreign");
    other.git("worktree", "add", "-q", "-b", "grove/a", foreign);
    expect(await v(foreign)).toMatchObject({ ok: false, reason: "wrong_repository" });
  });

  it("SES-3 validation performs no git mutation", async () => {
    const { repo, home, wt } = await setup();
    const path = join(home, "t", "repo");
    await wt.create({ repoPath: repo.path, worktreePath: path, branch: "grove/a", startPoint: "main", newBranch: true });
    const snapshot = () => [repo.git("for-each-ref"), repo.git("worktree", "list", "--porcelain"), repo.git("-C", path, "status", "--porcelain")].join("|");
    const before = snapshot();
    await wt.validate({ repoPath: repo.path, worktreePath: path, branch: "grove/a" });
    await wt.validate({ repoPath: repo.path, worktreePath: join(home, "gone"), branch: "grove/a" });
    expect(snapshot()).toBe(before);
  });

  it("LC-6 isDirty sees tracked and untracked changes, and remove never deletes the branch", async () => {
    const { repo, home, wt } = await setup();
    const path = join(home, "t", "repo");
    await wt.create({ repoPath: repo.path, worktreePath: path, branch: "grove/a", startPoint: "main", newBranch: true });
    expect(await wt.isDirty(path)).toBe(false);
    await writeFile(join(path, "new.txt"), "x");
    expect(await wt.isDirty(path)).toBe(true);
    await rm(join(path, "new.txt"));
    await writeFile(join(path, "README.md"), "changed\n");
    expect(await wt.isDirty(path)).toBe(true);

    await wt.remove({ repoPath: repo.path, worktreePath: path });
    expect(existsSync(path)).toBe(false);
    expect(await wt.list(repo.path)).toHaveLength(1);
    expect(branches(repo)).toContain("grove/a");
    // Already gone: fine.
    await wt.remove({ repoPath: repo.path, worktreePath: path });
  });

  it("LC-1 remove refuses to delete a directory git does not know as a worktree", async () => {
    const { repo, home, wt } = await setup();
    const plain = join(home, "plain");
    await mkdir(plain);
    await writeFile(join(plain, "precious"), "x");
    await expect(wt.remove({ repoPath: repo.path, worktreePath: plain })).rejects.toMatchObject({ code: "git_failed" });
    expect(existsSync(join(plain, "precious"))).toBe(true);
  });
});

describe("WorktreeManager recreate (WT-5) and undoCreate (WT-7)", () => {
  it("WT-5 recreates a vanished worktree in place on its branch with its commits", async () => {
    const { repo, home, wt } = await setup();
    const path = join(home, "t", "repo");
    await wt.create({ repoPath: repo.path, worktreePath: path, branch: "grove/a", startPoint: "main", newBranch: true });
    await writeFile(join(path, "work.txt"), "committed work\n");
    repo.git("-C", path, "add", "work.txt");
    repo.git("-C", path, "commit", "-qm", "work");
    const tip = repo.git("rev-parse", "grove/a").trim();

    expect(await wt.recreate({ repoPath: repo.path, worktreePath: path, branch: "grove/a" })).toEqual({ recreated: false });
    await rm(join(home, "t"), { recursive: true, force: true });
    expect(await wt.recreate({ repoPath: repo.path, worktreePath: path, branch: "grove/a" })).toEqual({ recreated: true });
    expect(await wt.validate({ repoPath: repo.path, worktreePath: path, branch: "grove/a" })).toEqual({ ok: true });
    expect(repo.git("-C", path, "rev-parse", "HEAD").trim()).toBe(tip);
    expect(existsSync(join(path, "work.txt"))).toBe(true);
    expect(await wt.list(repo.path)).toHaveLength(2);
  });

  it("WT-5 a vanished worktree whose branch is gone too is branch_unrecoverable", async () => {
    const { repo, home, wt } = await setup();
    const path = join(home, "t", "repo");
    await wt.create({ repoPath: repo.path, worktreePath: path, branch: "grove/a", startPoint: "main", newBranch: true });
    await rm(path, { recursive: true, force: true });
    repo.git("worktree", "prune");
    repo.git("branch", "-D", "grove/a");
    const err = await wt.recreate({ repoPath: repo.path, worktreePath: path, branch: "grove/a" }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "branch_unrecoverable", status: 409 });
    expect(existsSync(path)).toBe(false);
    expect(branches(repo)).toEqual(["main"]);
  });

  it("WT-5 a plain directory in the worktree's place is workspace_reuse_unsafe and untouched", async () => {
    const { repo, home, wt } = await setup();
    const path = join(home, "t", "repo");
    await wt.create({ repoPath: repo.path, worktreePath: path, branch: "grove/a", startPoint: "main", newBranch: true });
    await rm(path, { recursive: true, force: true });
    await mkdir(path);
    await writeFile(join(path, "someone-elses.txt"), "do not touch");
    const err = await wt.recreate({ repoPath: repo.path, worktreePath: path, branch: "grove/a" }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "workspace_reuse_unsafe", details: { reason: "not_a_worktree" } });
    expect(await readdir(path)).toEqual(["someone-elses.txt"]);
    // Nothing was pruned either: the stale registration is still there.
    expect((await wt.list(repo.path)).some((e) => e.path === path)).toBe(true);
  });

  it("WT-7 undoCreate leaves no directory, no registration and no branch", async () => {
    const { repo, home, wt } = await setup();
    const path = join(home, "t", "repo");
    const { createdBranch } = await wt.create({ repoPath: repo.path, worktreePath: path, branch: "grove/a", startPoint: "main", newBranch: true });
    await writeFile(join(path, "scratch.txt"), "x");
    await wt.undoCreate({ repoPath: repo.path, worktreePath: path, branch: "grove/a", createdBranch });
    expect(existsSync(path)).toBe(false);
    expect(await wt.list(repo.path)).toHaveLength(1);
    expect(repo.git("worktree", "list", "--porcelain")).not.toContain(path);
    expect(branches(repo)).toEqual(["main"]);
  });

  it("WT-7 undoCreate of a checkout of an existing branch keeps that branch", async () => {
    const { repo, home, wt } = await setup();
    repo.git("branch", "theirs");
    const path = join(home, "t", "repo");
    const { createdBranch } = await wt.create({ repoPath: repo.path, worktreePath: path, branch: "theirs", startPoint: "main", newBranch: false });
    await wt.undoCreate({ repoPath: repo.path, worktreePath: path, branch: "theirs", createdBranch });
    expect(existsSync(path)).toBe(false);
    expect(branches(repo)).toContain("theirs");
  });
});

describe("WorktreeManager list under another git process (WT-10, doctor)", () => {
  /**
   * A `worktree add` running beside a list (a pool fill runs outside the repository lock) can
   * remove a linked worktree's `locked` file between git's check and its read. A directory in
   * its place makes git die the same way every time (`failed to read '…/locked'`).
   */
  async function listRacing(): Promise<{ repo: TestRepo; git: GitRunner; wt: WorktreeManager; locked: string }> {
    const { repo, home, git, wt } = await setup();
    const path = join(home, "pool", "p1");
    await wt.create({ repoPath: repo.path, worktreePath: path, branch: "grove/p1", startPoint: "main", newBranch: true });
    const locked = join(repo.path, ".git", "worktrees", "p1", "locked");
    await mkdir(locked);
    return { repo, git, wt, locked };
  }

  it("WT-10 a list that git refuses because another git process is changing a worktree's admin files is asked again", async () => {
    const { repo, git, wt, locked } = await listRacing();
    const before = git.spawnCount;
    let settled = false;
    const listed = wt.list(repo.path).finally(() => (settled = true));
    // The other git process finishes once the first answer came back refused (or the list gave up).
    while (!settled && git.spawnCount - before < 2) await new Promise((r) => setTimeout(r, 5));
    await rm(locked, { recursive: true });
    const entries = await listed;
    expect(entries.map((e) => e.branch)).toEqual(["main", "grove/p1"]);
    expect(git.spawnCount - before).toBeGreaterThanOrEqual(2);
  });

  it("WT-10 an admin file that stays unreadable fails the list with git's own message after a bounded number of attempts", async () => {
    const { repo, git, wt } = await listRacing();
    const before = git.spawnCount;
    await expect(wt.list(repo.path)).rejects.toMatchObject({ code: "git_failed", message: expect.stringMatching(/failed to read '.*worktrees\/p1\/locked'/) });
    expect(git.spawnCount - before).toBe(6);
  });

  it("WT-10 any other failure of the list is not asked again", async () => {
    const { home, git, wt } = await setup();
    const before = git.spawnCount;
    await expect(wt.list(home)).rejects.toMatchObject({ code: "git_failed" });
    expect(git.spawnCount - before).toBe(1);
  });
});
