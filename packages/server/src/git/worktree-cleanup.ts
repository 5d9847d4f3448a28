import { lstat } from "node:fs/promises";
import { resolve } from "node:path";
import type { GitRunner } from "./runner.js";

/**
 * Removal of a task's worktree by lifecycle cleanup (LC-3, LC-7), under the repository lock.
 * - An already-missing directory is fine: its registration is pruned.
 * - `--force` once: uncommitted work goes (the caller saved it or has consent, LC-6/LC-8), but
 *   a *locked* worktree is refused by git, so a person's `git worktree lock` makes the job
 *   retry instead of being overridden.
 * Never deletes a branch. Returns whether a directory was removed.
 */
export async function removeWorktreeForCleanup(git: GitRunner, repoPath: string, worktreePath: string): Promise<{ removed: boolean }> {
  return git.withRepoLock(repoPath, async () => {
    const exists = await lstat(worktreePath).then(
      () => true,
      (e: NodeJS.ErrnoException) => {
        if (e.code === "ENOENT") return false;
        throw e;
      },
    );
    if (!exists) {
      await git.run(["worktree", "prune"], { cwd: repoPath });
      return { removed: false };
    }
    await git.run(["worktree", "remove", "--force", "--", resolve(worktreePath)], { cwd: repoPath });
    return { removed: true };
  });
}
