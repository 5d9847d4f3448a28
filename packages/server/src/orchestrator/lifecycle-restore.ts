import type { EnvironmentRepoRecord } from "../domain/records.js";
import { archivedWorkRef, deleteRef, readRef, restoreWorkFromRef } from "../git/archive-ref.js";
import { branchExists } from "../git/repository.js";
import type { Deps } from "./context.js";

/**
 * LC-8 on unarchive: after a tombstoned slot's worktree was recreated on its branch, the work
 * saved on the private ref is put back as uncommitted changes and the ref is dropped. A
 * restore that fails keeps the ref (nothing is lost) and is logged; the launch goes on.
 */
export async function restoreArchivedWork(deps: Deps, taskId: string, row: EnvironmentRepoRecord, repoPath: string): Promise<void> {
  if (row.status !== "deleted" || !row.worktreePath) return;
  const ref = archivedWorkRef(taskId, row.branchSlug);
  const commit = await readRef(deps.git, repoPath, ref);
  if (commit === null) return;
  try {
    await restoreWorkFromRef(deps.git, row.worktreePath, ref);
    await deleteRef(deps.git, repoPath, ref, commit);
    deps.log.info({ taskId, ref, worktreePath: row.worktreePath }, "uncommitted work restored after unarchive (LC-8)");
  } catch (e) {
    deps.log.warn({ err: e, taskId, ref, worktreePath: row.worktreePath }, "could not restore saved work; it stays on the private ref");
  }
}

/**
 * After an environment reset (LC-2), the task's branch of a slot was kept (LC-7) and the
 * environment is gone: the next materialization checks that branch out again instead of
 * failing with `branch_exists`. Only a branch recorded by this task's own succeeded reset job
 * qualifies (WT-2: nothing else is ever silently reused).
 */
export async function branchKeptByReset(deps: Deps, taskId: string, repositoryId: string, branchSlug: string, repoPath: string): Promise<string | null> {
  const jobs = await deps.store.listCleanupJobs(taskId);
  for (const job of [...jobs].reverse()) {
    if (job.trigger !== "environment_reset" || job.state !== "succeeded" || !job.snapshot) continue;
    const slot = job.snapshot.slots.find((s) => s.repositoryId === repositoryId && s.branchSlug === branchSlug);
    if (slot && (await branchExists(deps.git, repoPath, slot.worktreeBranch))) return slot.worktreeBranch;
  }
  return null;
}
