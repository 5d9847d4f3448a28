import { copyFile, rm } from "node:fs/promises";
import { randomBytes } from "node:crypto";
import { AppError } from "../domain/errors.js";
import type { GitRunner } from "./runner.js";

/**
 * LC-8: uncommitted work saved outside the branch. A dirty worktree's tracked and untracked
 * (not ignored) files are written as one commit whose parent is the branch head, built with a
 * temporary index (the worktree's own index and the branch are never touched), and kept on a
 * private ref `refs/grove/archived/<taskId>/<slot>` that no branch listing shows.
 */

/** Who the saved commit is attributed to (no user identity is needed or read). */
const IDENTITY = {
  GIT_AUTHOR_NAME: "Grove",
  GIT_AUTHOR_EMAIL: "grove@localhost.invalid",
  GIT_COMMITTER_NAME: "Grove",
  GIT_COMMITTER_EMAIL: "grove@localhost.invalid",
};

/** The private ref of one slot; `slot` is the slot's branch slug (or "default" for a flat slot). */
export function archivedWorkRef(taskId: string, slot: string): string {
  const part = (s: string): string => s.replace(/[^A-Za-z0-9_-]/g, "-") || "default";
  return `refs/grove/archived/${part(taskId)}/${part(slot)}`;
}

/**
 * Saves the worktree's uncommitted and untracked work on `ref` and returns the commit, or null
 * when the working tree equals HEAD (nothing to save; the ref is left alone). Read-only for the
 * worktree itself: only a temporary index next to the real one is written.
 */
export async function saveWorkToRef(git: GitRunner, worktreePath: string, ref: string, message: string): Promise<string | null> {
  const cwd = worktreePath;
  const indexPath = (await git.run(["rev-parse", "--path-format=absolute", "--git-path", "index"], { cwd })).stdout.trim();
  const tmpIndex = `${indexPath}.grove-archive-${randomBytes(4).toString("hex")}`;
  try {
    // Starting from a copy of the real index lets `add -A` reuse its stat cache (fast on big trees).
    await copyFile(indexPath, tmpIndex).catch(() => undefined);
    const env = { GIT_INDEX_FILE: tmpIndex };
    await git.run(["add", "-A", "--", "."], { cwd, env });
    const tree = (await git.run(["write-tree"], { cwd, env })).stdout.trim();
    const head = await git.run(["rev-parse", "--verify", "--quiet", "HEAD^{tree}", "HEAD"], { cwd, okExitCodes: [1, 128] });
    const [headTree, headCommit] = head.stdout.trim().split("\n");
    if (head.exitCode === 0 && headTree === tree) return null;
    const parents = head.exitCode === 0 && headCommit ? ["-p", headCommit] : [];
    const commit = (await git.run(["commit-tree", tree, ...parents, "-m", message], { cwd, env: IDENTITY })).stdout.trim();
    await git.run(["update-ref", "-m", "grove: save uncommitted work", ref, commit], { cwd });
    return commit;
  } finally {
    await rm(tmpIndex, { force: true });
  }
}

/** The commit `ref` points at, or null. */
export async function readRef(git: GitRunner, repoPath: string, ref: string): Promise<string | null> {
  const r = await git.run(["rev-parse", "--verify", "--quiet", `${ref}^{commit}`], { cwd: repoPath, okExitCodes: [1, 128] });
  const sha = r.stdout.trim();
  return r.exitCode === 0 && sha ? sha : null;
}

/**
 * LC-8 restore: applies the saved commit's changes onto the worktree (a three-way apply, so a
 * branch that moved on since is fine) and leaves them uncommitted: the index is reset to HEAD,
 * files that were untracked are untracked again. Needs a clean worktree; a conflict →
 * `git_failed` and the worktree is put back as it was.
 */
export async function restoreWorkFromRef(git: GitRunner, worktreePath: string, ref: string): Promise<void> {
  const cwd = worktreePath;
  const dirty = await git.run(["status", "--porcelain", "-z", "--untracked-files=normal"], { cwd });
  if (dirty.stdoutBuffer.length > 0) throw new AppError("git_failed", `cannot restore ${ref}: ${worktreePath} has uncommitted changes`, { ref });
  try {
    await git.run(["cherry-pick", "--no-commit", "--end-of-options", ref], { cwd });
  } catch (e) {
    await git.run(["cherry-pick", "--abort"], { cwd, okExitCodes: [128] }).catch(() => undefined);
    await git.run(["reset", "-q", "--hard", "HEAD"], { cwd }).catch(() => undefined);
    throw e;
  }
  await git.run(["reset", "-q"], { cwd });
}

/** Deletes `ref` if it still points at `expected` (compare-and-set in git). */
export async function deleteRef(git: GitRunner, repoPath: string, ref: string, expected: string): Promise<void> {
  await git.run(["update-ref", "-d", ref, expected], { cwd: repoPath });
}
