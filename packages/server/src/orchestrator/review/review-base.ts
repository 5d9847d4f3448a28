import { AppError } from "../../domain/errors.js";
import { resolveCommit } from "../../git/repository.js";
import type { Deps } from "../context.js";
import { prepareStartPoint } from "../refresh/refresh.js";
import type { ReviewSlot } from "./review-slot.js";

/**
 * RR-4 for update from base: the base commit, after refreshing through the repository's route
 * (managed / executor / none for remote repositories; a local checkout's fetch only with
 * `pullBeforeWorktree`, else its local base branch). This is the one call from review into the
 * refresh code — the same public seam a new worktree uses — so a change of how routes are
 * resolved lands here too. A pull-request checkout is brought up to its base branch, not its head.
 */
export async function refreshedBase(deps: Pick<Deps, "store" | "git" | "log" | "home" | "remote">, slot: ReviewSlot, sessionId?: string): Promise<string> {
  const startPoint = await prepareStartPoint(
    deps,
    {
      attachment: { ...slot.attachment, prNumber: null },
      repository: slot.repository,
      branchSlug: slot.row.branchSlug,
      worktreePath: slot.worktreePath,
      branch: slot.branch,
    },
    // No session is involved in a person's update; scope ids then name task and repository only.
    { taskId: slot.task.id, sessionId: sessionId ?? "" },
  );
  const commit = await resolveCommit(deps.git, slot.worktree, startPoint);
  if (commit === null)
    throw new AppError("base_branch_not_found", `base ${slot.attachment.baseBranch} of repository ${slot.repository.name} names no commit`, {
      taskId: slot.task.id,
      repositoryId: slot.repository.id,
    });
  return commit;
}
