import { AppError, isAppError } from "../domain/errors.js";
import type { GitRunner } from "./runner.js";
import { workTreeOf, type GitCwd } from "./worktree-link.js";

/**
 * The merge-base of HEAD and `baseBranch` in `cwd`, or null when the histories share no commit.
 * A base that names no commit is `base_branch_not_found`. `--end-of-options` keeps the base
 * from ever being read as an option (SEC-3).
 */
export async function mergeBaseOf(git: GitRunner, cwd: GitCwd, baseBranch: string): Promise<string | null> {
  try {
    const r = await git.run(["merge-base", "--end-of-options", "HEAD", baseBranch], { cwd, okExitCodes: [1] });
    return r.exitCode === 0 ? r.stdout.trim() : null;
  } catch (e) {
    if (isAppError(e) && e.code === "git_failed" && e.details?.exitCode === 128) {
      throw new AppError("base_branch_not_found", `base branch ${baseBranch} not found in ${workTreeOf(cwd)}`, { baseBranch });
    }
    throw e;
  }
}
