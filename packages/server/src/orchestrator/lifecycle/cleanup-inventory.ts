import { existsSync } from "node:fs";
import type { CleanupSlot, CleanupSnapshot } from "../../domain/cleanup-job.js";
import { AppError } from "../../domain/errors.js";
import { slotSlug } from "../../domain/layout.js";
import type { EnvironmentRepoRecord, RepositoryRecord, TaskRecord } from "../../domain/records.js";
import type { Deps } from "../context.js";
import { taskRoot } from "../worktrees/paths.js";
import { getRepositoryOnThisRunner } from "../refresh/repository-on-runner.js";

/**
 * FLOWS "Archive" step 2: the task's sessions, their recorded agent processes and every
 * environment row with a physical tuple. Taken after the job is reserved, so the barrier
 * guarantees nothing is added to the task while the job lives (LC-2).
 */
export async function takeInventory(deps: Pick<Deps, "store" | "home" | "remote">, task: TaskRecord): Promise<CleanupSnapshot> {
  const env = await deps.store.getEnvironmentByTask(task.id);
  const rows = env ? await deps.store.listEnvironmentRepos(env.id) : [];
  const sessions = await deps.store.listSessions(task.id);
  const sessionIds = sessions.map((s) => s.id);
  const procs = await deps.store.listAgentProcessesOfSessions(sessionIds);
  const slots: CleanupSlot[] = [];
  for (const r of rows) {
    if (!r.worktreeId || !r.worktreePath || !r.worktreeBranch) continue;
    const repo = await getRepositoryOnThisRunner(deps, r.repositoryId);
    if (!repo) continue;
    slots.push({
      rowId: r.id,
      repositoryId: r.repositoryId,
      repoPath: repo.path,
      branchSlug: r.branchSlug,
      worktreeId: r.worktreeId,
      worktreePath: r.worktreePath,
      worktreeBranch: r.worktreeBranch,
      baseBranch: r.baseBranch,
      branchCreatedByGrove: createdByGrove(task, repo, r),
      tombstoned: r.status === "deleted",
    });
  }
  return {
    taskId: task.id,
    taskRoot: taskRoot(deps, task),
    environmentId: env?.id ?? null,
    sessionIds,
    agentProcesses: procs.map((p) => ({ sessionId: p.sessionId, pid: p.pid, startTime: p.startTime })),
    slots,
  };
}

/**
 * LC-7: whether the row's branch is one Grove created for the task. The attachment says so:
 * without a `checkoutBranch` the branch was rendered from the branch template and created new
 * (WT-2 refuses an existing one). A `checkoutBranch` names the person's branch; even when Grove
 * had to create it, it is kept (a leaked branch is recoverable, a deleted one may not be). The
 * base and the repository's default branch are never counted as Grove's.
 */
function createdByGrove(task: TaskRecord, repo: RepositoryRecord, row: EnvironmentRepoRecord): boolean {
  const att = task.repositories.find((a) => a.repositoryId === row.repositoryId && slotSlug(a) === row.branchSlug);
  if (!att || att.checkoutBranch !== null) return false;
  const branch = row.worktreeBranch;
  return branch !== null && branch !== att.baseBranch && branch !== row.baseBranch && branch !== repo.defaultBranch;
}

/** LC-6: the first live slot with uncommitted or untracked work → `dirty_worktree`. Missing directories are not dirty. */
export async function assertClean(deps: Pick<Deps, "worktrees">, snapshot: CleanupSnapshot): Promise<void> {
  for (const slot of snapshot.slots) {
    if (slot.tombstoned || !existsSync(slot.worktreePath)) continue;
    // SBX-4: pinned; a redirected `.git` is `workspace_tampered` (restore it, then delete).
    const worktree = await deps.worktrees.pin({ repoPath: slot.repoPath, worktreePath: slot.worktreePath });
    if (await deps.worktrees.isDirty(worktree)) {
      throw new AppError("dirty_worktree", `${slot.worktreePath} has uncommitted or untracked changes; pass discardChanges=true to delete anyway`, {
        repositoryId: slot.repositoryId,
        worktreePath: slot.worktreePath,
      });
    }
  }
}
