import { lstat, mkdir, realpath } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { AppError } from "../domain/errors.js";
import { assertBranchName } from "../domain/layout.js";
import { rebasingBranch } from "./rebase-head.js";
import { branchExists } from "./repository.js";
import type { GitRunner } from "./runner.js";
import { parseWorktreeList, type WorktreeEntry } from "./worktree-list.js";
import { WorktreeLinks, type GitCwd, type PinnedWorktree, type WorktreeLink } from "./worktree-link.js";
import { readPlainText } from "./plain-file.js";

export type { WorktreeEntry } from "./worktree-list.js";

/** Why an existing worktree may not be reused (SES-3); `details.reason` of `workspace_reuse_unsafe`. */
export type ReuseFailure = "missing" | "not_a_directory" | "not_a_worktree" | "wrong_repository" | "wrong_branch" | "detached_head" | "tampered";

/** The outcome of the SES-3 validation of one slot. */
export type WorktreeValidation = { ok: true } | { ok: false; reason: ReuseFailure; message: string };

async function pathKind(path: string): Promise<"missing" | "directory" | "other"> {
  try {
    return (await lstat(path)).isDirectory() ? "directory" : "other";
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return "missing";
    throw e;
  }
}

/** How often `list` asks git when another git process changed a worktree's admin files under it. */
const LIST_ATTEMPTS = 6;

/** Git's death on an admin file of a linked worktree that vanished between its check and its read. */
function isAdminFileRace(e: unknown): boolean {
  return e instanceof AppError && e.code === "git_failed" && /failed to read '?[^']*worktrees\/[^/']+\/(locked|commondir|gitdir)/.test(e.message);
}

/**
 * Creates, validates, recreates and removes a task's worktrees (WT-1..WT-7, SES-3). Every
 * mutation runs under the repository's lock; user-supplied branches and paths reach git only
 * after `--` or as validated branch names (SEC-3). No database, no network.
 */
export class WorktreeManager {
  private readonly links = new WorktreeLinks();

  constructor(private readonly git: GitRunner) {}

  /** SBX-4: the recorded worktree's link to its admin dir, judged from the repository's side (see WorktreeLink). */
  async link(input: { repoPath: string; worktreePath: string }): Promise<WorktreeLink> {
    return this.links.check(await this.git.commonDir(input.repoPath), input.worktreePath);
  }

  /** The linked worktrees the repository records (not its main checkout), from its admin dirs: no git process once its common dir is known. */
  async linkedPaths(repoPath: string): Promise<string[]> {
    return this.links.recordedWorktrees(await this.git.commonDir(repoPath));
  }

  /**
   * SBX-4: the pinned location of a recorded task worktree, for every git call in it. A `.git`
   * that no longer points at the recorded admin dir → `409 workspace_tampered` (nothing runs);
   * a path git records no worktree for → `409 workspace_reuse_unsafe`.
   */
  async pin(input: { repoPath: string; worktreePath: string }): Promise<PinnedWorktree> {
    const l = await this.link(input);
    if (l.state === "ok") return l.pin;
    if (l.state === "tampered") throw tamperedError(input.worktreePath, l.message);
    if (l.state === "unlinked") {
      throw new AppError("workspace_reuse_unsafe", `${input.worktreePath} is not a git worktree any more (no .git link)`, {
        reason: "not_a_worktree",
        path: input.worktreePath,
      });
    }
    if ((await pathKind(input.worktreePath)) === "missing")
      throw new AppError("workspace_missing", `the worktree ${input.worktreePath} does not exist`, { path: input.worktreePath });
    throw new AppError("workspace_reuse_unsafe", `git records no worktree of this repository at ${input.worktreePath}`, {
      reason: "not_a_worktree",
      path: input.worktreePath,
    });
  }

  /**
   * SBX-4: puts a tampered worktree's `.git` link back to its recorded admin dir (the person's
   * restore). A `.git` directory is refused (`workspace_tampered`): it is moved aside by hand.
   */
  async repairLink(input: { repoPath: string; worktreePath: string }): Promise<{ repaired: boolean }> {
    const l = await this.link(input);
    if (l.state !== "tampered") return { repaired: false };
    if ((await lstat(join(input.worktreePath, ".git"))).isDirectory()) throw tamperedError(input.worktreePath, l.message);
    await this.links.repair(l.adminDir, input.worktreePath);
    return { repaired: true };
  }

  /**
   * Adds a worktree at `worktreePath`. `newBranch: true` creates `branch` at `startPoint` and
   * refuses an existing branch (`branch_exists`, WT-2); `newBranch: false` checks out the
   * existing local `branch` (`base_branch_not_found` if there is none). An existing path is
   * refused (`workspace_reuse_unsafe`, reason `path_exists`). Returns what this call created so a
   * caller whose database write fails can undo exactly that (WT-7). If git fails half-way, what it
   * left behind is undone before the error is rethrown.
   */
  async create(input: {
    repoPath: string;
    worktreePath: string;
    branch: string;
    startPoint: string;
    newBranch: boolean;
    noCheckout?: boolean;
  }): Promise<{ createdBranch: boolean }> {
    const { repoPath, worktreePath, branch, startPoint, newBranch } = input;
    // `git worktree add -b X` hands X to an internal `git branch X` without `--`, so a name
    // such as `--upload-pack=x` would become an option there: validate before git sees it.
    assertBranchName(branch, "branch");
    // Read-only checks run before the repository lock: the lock serializes every launch on the
    // repository, so it covers only the path check and `git worktree add`. A new branch is not
    // looked up first: `worktree add -b` itself refuses an existing one before it creates
    // anything (below, `branch_exists`), and that branch is never deleted — one git process
    // fewer on every task start.
    if (!newBranch && !(await branchExists(this.git, repoPath, branch))) {
      throw new AppError("base_branch_not_found", `branch ${branch} does not exist`, { branch });
    }
    await mkdir(dirname(worktreePath), { recursive: true, mode: 0o700 });
    return this.git.withRepoLock(repoPath, async () => {
      if ((await pathKind(worktreePath)) !== "missing") {
        throw new AppError("workspace_reuse_unsafe", `${worktreePath} already exists`, { reason: "path_exists", path: worktreePath });
      }
      // WT-11: a sparse worktree is added without a checkout; the caller then checks out its cone
      // (checkoutSparse).
      const noCheckout = input.noCheckout ? ["--no-checkout"] : [];
      const args = newBranch
        ? ["worktree", "add", ...noCheckout, "-b", branch, "--", worktreePath, startPoint]
        : ["worktree", "add", ...noCheckout, "--", worktreePath, branch];
      try {
        await this.git.run(args, { cwd: repoPath });
      } catch (e) {
        // `-b` refused an existing branch: nothing of ours to undo, and that branch is not ours
        // to delete.
        const raced = newBranch && e instanceof AppError && /a branch named .* already exists/.test(e.message);
        await this.undoCreate({ repoPath, worktreePath, branch, createdBranch: !raced && newBranch && (await branchExists(this.git, repoPath, branch)) }).catch(
          () => undefined,
        );
        if (raced) throw new AppError("branch_exists", `branch ${branch} already exists`, { branch });
        throw e;
      }
      return { createdBranch: newBranch };
    });
  }

  /**
   * SES-3 / WT-4: read-only, no network. The directory exists, its `git rev-parse
   * --git-common-dir` (real path) is the repository's, it is the top level of that work tree,
   * and HEAD is on `branch`. One git process per slot, plus one per repository (cached).
   */
  async validate(input: { repoPath: string; worktreePath: string; branch: string }): Promise<WorktreeValidation> {
    const { repoPath, worktreePath, branch } = input;
    const fail = (reason: ReuseFailure, message: string): WorktreeValidation => ({ ok: false, reason, message });
    const kind = await pathKind(worktreePath);
    if (kind === "missing") return fail("missing", `${worktreePath} does not exist`);
    if (kind === "other") return fail("not_a_directory", `${worktreePath} is not a directory`);

    // SBX-4: judged from the repository's admin dirs, never by following the worktree's `.git`.
    const link = await this.link({ repoPath, worktreePath });
    if (link.state === "tampered") return fail("tampered", link.message);
    if (link.state === "unlinked") return fail("not_a_worktree", `${worktreePath} is not a git worktree`);
    if (link.state === "unregistered") return this.foreignReason(repoPath, worktreePath);

    let lines: string[];
    try {
      const r = await this.git.run(
        ["rev-parse", "--path-format=absolute", "--git-common-dir", "--show-toplevel", "--symbolic-full-name", "HEAD", "--git-dir"],
        { cwd: link.pin },
      );
      lines = r.stdout.split("\n");
    } catch {
      return fail("not_a_worktree", `${worktreePath} is not a git worktree`);
    }
    const [common = "", top = "", head = "", gitDir = ""] = lines;
    // A plain directory inside some other checkout would report that checkout's top level.
    if (!top || (await realpath(top)) !== (await realpath(worktreePath))) {
      return fail("not_a_worktree", `${worktreePath} is not the top level of a git worktree`);
    }
    const expected = await this.git.commonDir(repoPath);
    if ((await realpath(common)) !== expected) {
      return fail("wrong_repository", `${worktreePath} belongs to ${common}, not ${expected}`);
    }
    // A rebase stopped on this very branch (kept conflicts) detaches HEAD by design.
    if (head === "HEAD" && (await rebasingBranch(gitDir)) === `refs/heads/${branch}`) return { ok: true };
    if (head === "HEAD") return fail("detached_head", `${worktreePath} has a detached HEAD, expected branch ${branch}`);
    if (head !== `refs/heads/${branch}`) {
      return fail("wrong_branch", `${worktreePath} is on ${head.replace(/^refs\/heads\//, "")}, expected ${branch}`);
    }
    return { ok: true };
  }

  /**
   * Why a directory git records no worktree for is not ours: another repository's worktree, or
   * no worktree at all. Read from its `.git` link without running git in it.
   */
  private async foreignReason(repoPath: string, worktreePath: string): Promise<WorktreeValidation> {
    const text = await readPlainText(join(worktreePath, ".git"));
    const m = text === null ? null : /^gitdir: (.+)$/m.exec(text);
    if (m?.[1]) {
      const target = await realpath(resolve(worktreePath, m[1].trim())).catch(() => null);
      const expected = await this.git.commonDir(repoPath);
      if (target !== null && dirname(dirname(target)) !== expected) {
        return { ok: false, reason: "wrong_repository", message: `${worktreePath} belongs to ${dirname(dirname(target))}, not ${expected}` };
      }
    }
    return { ok: false, reason: "not_a_worktree", message: `${worktreePath} is not a git worktree of this repository` };
  }

  /**
   * WT-11: restricts the worktree to the cone of `sparse` (directories, git's cone mode) and
   * checks out what lies in it. Idempotent, so a launch interrupted between `worktree add
   * --no-checkout` and this step is finished by the next attempt instead of being adopted with
   * an empty index. `git sparse-checkout` sets `extensions.worktreeConfig` in the repository, as
   * git always does; the agent's sandbox binds the worktree's `config.worktree` read-only (SBX-4.6).
   */
  async checkoutSparse(input: { repoPath: string; worktreePath: string; sparse: readonly string[] }): Promise<void> {
    const pin = await this.pin(input);
    await this.git.run(["sparse-checkout", "set", "--cone", "--", ...input.sparse], { cwd: pin });
    // Fills the empty index of a `--no-checkout` add; a no-op on a worktree already checked out.
    await this.git.run(["read-tree", "-mu", "HEAD"], { cwd: pin });
  }

  /**
   * WT-5: a valid directory is left alone (`recreated: false`); a directory that is not this
   * worktree is refused (`workspace_reuse_unsafe` with `details.reason`) and nothing is touched;
   * a missing one is pruned and re-added in place on its branch, or `branch_unrecoverable` if the
   * branch is gone too (nothing is invented).
   */
  async recreate(input: { repoPath: string; worktreePath: string; branch: string; sparse?: readonly string[] }): Promise<{ recreated: boolean }> {
    const { repoPath, worktreePath, branch } = input;
    const sparse = input.sparse ?? [];
    assertBranchName(branch, "branch");
    return this.git.withRepoLock(repoPath, async () => {
      const v = await this.validate(input);
      if (v.ok) return { recreated: false };
      if (v.reason !== "missing") {
        throw new AppError("workspace_reuse_unsafe", v.message, { reason: v.reason, path: worktreePath });
      }
      // The registration of the vanished directory blocks `worktree add` on the same path/branch.
      await this.git.run(["worktree", "prune"], { cwd: repoPath });
      if (!(await branchExists(this.git, repoPath, branch))) {
        throw new AppError("branch_unrecoverable", `worktree ${worktreePath} and its branch ${branch} are both gone`, { branch, path: worktreePath });
      }
      await mkdir(dirname(worktreePath), { recursive: true, mode: 0o700 });
      await this.git.run(["worktree", "add", ...(sparse.length > 0 ? ["--no-checkout"] : []), "--", worktreePath, branch], { cwd: repoPath });
      if (sparse.length > 0) await this.checkoutSparse({ repoPath, worktreePath, sparse });
      return { recreated: true };
    });
  }

  /**
   * Removes a worktree (forced: uncommitted work goes, so callers check `isDirty` first, LC-6)
   * and prunes registrations. A missing directory is fine; a directory that git does not know
   * as a worktree is not deleted (`git_failed`). Never deletes the branch.
   */
  async remove(input: { repoPath: string; worktreePath: string }): Promise<void> {
    const { repoPath, worktreePath } = input;
    await this.git.withRepoLock(repoPath, async () => {
      if ((await pathKind(worktreePath)) !== "missing") {
        // Twice --force: also removes a locked worktree.
        await this.git.run(["worktree", "remove", "--force", "--force", "--", resolve(worktreePath)], { cwd: repoPath });
      }
      await this.git.run(["worktree", "prune"], { cwd: repoPath });
    });
  }

  /** WT-7 compensation: removes the worktree and, if this attempt created it, the branch (`-D`). */
  async undoCreate(input: { repoPath: string; worktreePath: string; branch: string; createdBranch: boolean }): Promise<void> {
    const { repoPath, worktreePath, branch, createdBranch } = input;
    await this.git.withRepoLock(repoPath, async () => {
      await this.remove({ repoPath, worktreePath });
      if (createdBranch && (await branchExists(this.git, repoPath, branch))) {
        await this.git.run(["branch", "-D", "--", branch], { cwd: repoPath });
      }
    });
  }

  /**
   * The repository's registered worktrees (`git worktree list --porcelain -z`), main checkout
   * first. Git checks that each worktree's admin files (`locked`, `commondir`, `gitdir`) exist
   * and then reads them; a `worktree add` or `remove` running meanwhile (a pool fill runs outside
   * the repository lock, WT-10) can take one away in between, and git dies with `failed to read
   * '.git/worktrees/<id>/locked'`. That answer says nothing about the repository, so it is asked
   * again, a few times; any other failure is not.
   */
  async list(repoPath: string): Promise<WorktreeEntry[]> {
    for (let attempt = 1; ; attempt++) {
      try {
        const r = await this.git.run(["worktree", "list", "--porcelain", "-z"], { cwd: repoPath });
        return parseWorktreeList(r.stdout);
      } catch (e) {
        if (attempt >= LIST_ATTEMPTS || !isAdminFileRace(e)) throw e;
        await new Promise((r) => setTimeout(r, attempt * 20));
      }
    }
  }

  /** Whether the worktree has tracked or untracked (not ignored) changes. */
  async isDirty(worktreePath: GitCwd): Promise<boolean> {
    const r = await this.git.run(["status", "--porcelain", "-z", "--untracked-files=normal"], { cwd: worktreePath });
    return r.stdoutBuffer.length > 0;
  }
}

/** SBX-4: the refusal for a worktree whose `.git` was redirected, with the fix. */
export function tamperedError(worktreePath: string, message: string, extra: Record<string, unknown> = {}): AppError {
  return new AppError("workspace_tampered", `${message}: Grove runs nothing in ${worktreePath} until it is restored`, {
    path: worktreePath,
    ...extra,
    action:
      "restore the task's environment (POST /tasks/:id/environment/restore, `grove task restore <taskId>`): the .git link is written back to the recorded git dir",
  });
}
