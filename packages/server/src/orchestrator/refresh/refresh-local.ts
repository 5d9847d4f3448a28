import { AppError, isAppError } from "../../domain/errors.js";
import { selectBase } from "../../git/base-select.js";
import { fetchBaseFromOrigin } from "../../git/fetch.js";
import { resolveCommit } from "../../git/repository.js";
import type { Deps } from "../context.js";
import type { PlannedSlot } from "../planned-slot.js";
import type { RepositoryRecord } from "../../domain/records.js";
import { scopeIds, type RefreshScope } from "./refresh-routes.js";

/**
 * WT-3, the local-checkout route (the manager's own fetch): with `pullBeforeWorktree` off, the
 * start point is the local base branch and nothing touches the network. On: under the
 * repository lock, fetch the base from `origin` non-interactively, then select the base
 * (`git/base-select.ts`). A failed fetch stops preparation — there is no stale fallback — and
 * every error names the repository. No ref is moved: the new worktree's branch is created at
 * the chosen commit.
 */
export async function prepareLocalStartPoint(deps: Pick<Deps, "git" | "log">, slot: PlannedSlot, scope?: RefreshScope): Promise<string> {
  const { repository: repo, attachment: att } = slot;
  if (!repo.pullBeforeWorktree) return att.baseBranch;
  return withRepositoryNamed(repo, scope, () =>
    deps.git.withRepoLock(repo.path, async () => {
      const local = await resolveCommit(deps.git, repo.path, `refs/heads/${att.baseBranch}`);
      if (local === null) {
        throw new AppError("base_branch_not_found", `base branch ${att.baseBranch} does not exist in ${repo.name}`, { baseBranch: att.baseBranch });
      }
      const { commit: fetched } = await fetchBaseFromOrigin(deps.git, repo.path, att.baseBranch);
      const choice = await selectBase(deps.git, repo.path, { local, fetched, branch: att.baseBranch });
      deps.log.info(
        { repositoryId: repo.id, baseBranch: att.baseBranch, chose: choice.chose, startPoint: choice.startPoint },
        "WT-3 base selected after fetch",
      );
      return choice.startPoint;
    }),
  );
}

/**
 * WT-3 before a *recreate* (WT-5) of a local checkout's worktree: with `pullBeforeWorktree` on,
 * the same non-interactive fetch of the base runs first and a failure stops the recreate. The
 * recreated worktree is the task's own branch, so nothing is selected and no ref moves.
 */
export async function refreshLocalBeforeRecreate(deps: Pick<Deps, "git">, repo: RepositoryRecord, baseBranch: string, scope?: RefreshScope): Promise<void> {
  if (!repo.pullBeforeWorktree) return;
  await withRepositoryNamed(repo, scope, () => deps.git.withRepoLock(repo.path, () => fetchBaseFromOrigin(deps.git, repo.path, baseBranch)));
}

/**
 * Every error names the repository in its message too (the session's lastError is read by
 * people) and carries the RR-7 scope: task, session and repository ids.
 */
async function withRepositoryNamed<T>(repo: RepositoryRecord, scope: RefreshScope | undefined, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (isAppError(e))
      throw new AppError(e.code, `${repo.name}: ${e.message}`, { ...(e.details ?? {}), ...(scope ? scopeIds(repo, scope) : { repositoryId: repo.id }) });
    throw e;
  }
}
