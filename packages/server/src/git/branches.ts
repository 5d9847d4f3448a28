import { branchExists, resolveCommit } from "./repository.js";
import type { GitRunner } from "./runner.js";

/**
 * LC-7: whether `branch` holds commits that `base` does not contain. Unknown answers count as
 * "yes" (keep the branch): a missing base, or a branch that does not resolve, never leads to a
 * deletion.
 */
export async function hasCommitsOutside(git: GitRunner, repoPath: string, branch: string, base: string): Promise<boolean> {
  const tip = await resolveCommit(git, repoPath, `refs/heads/${branch}`);
  if (tip === null) return false;
  const baseTip = (await resolveCommit(git, repoPath, `refs/heads/${base}`)) ?? (await resolveCommit(git, repoPath, base));
  if (baseTip === null) return true;
  const r = await git.run(["rev-list", "--count", tip, `^${baseTip}`], { cwd: repoPath });
  return Number(r.stdout.trim()) > 0;
}

/**
 * Deletes a branch that holds nothing outside its base (LC-7 is re-checked under the
 * repository lock) and is not the base itself. Returns true when it was deleted. The caller
 * decides whether the branch is Grove's to delete at all. A branch checked out somewhere is
 * refused by git itself and reported as an error.
 */
export async function deleteMergedBranch(git: GitRunner, repoPath: string, branch: string, base: string): Promise<boolean> {
  // A branch that is its own base has, by definition, nothing outside it: that says nothing
  // about whose it is, so it is never deleted (LC-7).
  if (branch === base) return false;
  return git.withRepoLock(repoPath, async () => {
    if (!(await branchExists(git, repoPath, branch))) return false;
    if (await hasCommitsOutside(git, repoPath, branch, base)) return false;
    await git.run(["branch", "-D", "--", branch], { cwd: repoPath });
    return true;
  });
}
