import { existsSync } from "node:fs";
import type { CleanupSlot, CleanupSnapshot } from "../domain/cleanup-job.js";
import { AppError } from "../domain/errors.js";
import type { TaskRecord } from "../domain/records.js";
import type { Deps } from "./context.js";
import { taskRoot } from "./paths.js";

/**
 * FLOWS "Archive" step 2: the task's sessions, their recorded agent processes and every
 * environment row with a physical tuple. Taken after the job is reserved, so the barrier
 * guarantees nothing is added to the task while the job lives (LC-2).
 */
export async function takeInventory(deps: Deps, task: TaskRecord): Promise<CleanupSnapshot> {
  const env = await deps.store.getEnvironmentByTask(task.id);
  const rows = env ? await deps.store.listEnvironmentRepos(env.id) : [];
  const sessions = await deps.store.listSessions(task.id);
  const sessionIds = sessions.map((s) => s.id);
  const procs = (await deps.store.listAgentProcesses(deps.runnerId)).filter((p) => sessionIds.includes(p.sessionId));
  const slots: CleanupSlot[] = [];
  for (const r of rows) {
    if (!r.worktreeId || !r.worktreePath || !r.worktreeBranch) continue;
    const repo = await deps.store.getRepository(r.repositoryId);
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

/** LC-6: the first live slot with uncommitted or untracked work → `dirty_worktree`. Missing directories are not dirty. */
export async function assertClean(deps: Deps, snapshot: CleanupSnapshot): Promise<void> {
  for (const slot of snapshot.slots) {
    if (slot.tombstoned || !existsSync(slot.worktreePath)) continue;
    if (await deps.worktrees.isDirty(slot.worktreePath)) {
      throw new AppError("dirty_worktree", `${slot.worktreePath} has uncommitted or untracked changes; pass discardChanges=true to delete anyway`, {
        repositoryId: slot.repositoryId,
        worktreePath: slot.worktreePath,
      });
    }
  }
}
