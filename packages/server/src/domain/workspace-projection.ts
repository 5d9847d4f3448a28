import { AppError } from "./errors.js";
import type { EnvironmentRecord, EnvironmentRepoRecord, WorktreeTuple } from "./records.js";

export interface ProjectedSlot extends WorktreeTuple {
  row: EnvironmentRepoRecord;
}

export interface ProjectedWorkspace {
  environmentId: string;
  /** The single worktree, or the task root when there are several (ENV-5). */
  workspacePath: string;
  slots: ProjectedSlot[];
}

/**
 * ENV-5: the workspace of a session, projected from persisted rows only. Missing or
 * ambiguous inventory fails closed with `workspace_missing`; nothing is guessed from the
 * filesystem and the source checkout is never substituted. Tombstoned rows are included when
 * `includeDeleted` (recreate after unarchive), otherwise only active rows count.
 */
export function projectWorkspace(
  env: EnvironmentRecord | undefined,
  rows: readonly EnvironmentRepoRecord[],
  taskRoot: string,
  opts: { includeDeleted?: boolean } = {},
): ProjectedWorkspace {
  if (!env) throw new AppError("workspace_missing", "the task has no environment");
  if (env.status !== "ready") throw new AppError("workspace_missing", `the environment is ${env.status}`, { status: env.status });
  const live = rows.filter((r) => r.status === "active" || opts.includeDeleted === true);
  if (live.length === 0) throw new AppError("workspace_missing", "the environment has no repository rows");
  const slots: ProjectedSlot[] = [];
  const seen = new Set<string>();
  for (const row of [...live].sort((a, b) => a.position - b.position)) {
    if (!row.worktreeId || !row.worktreePath || !row.worktreeBranch) {
      throw new AppError("workspace_missing", `repository slot ${row.repositoryId}/${row.branchSlug || "(flat)"} has no worktree identity`, {
        repositoryId: row.repositoryId,
      });
    }
    if (seen.has(row.worktreePath)) {
      throw new AppError("workspace_missing", `two slots claim ${row.worktreePath}`, { repositoryId: row.repositoryId });
    }
    seen.add(row.worktreePath);
    slots.push({ row, worktreeId: row.worktreeId, worktreePath: row.worktreePath, worktreeBranch: row.worktreeBranch });
  }
  const only = slots.length === 1 ? slots[0] : undefined;
  return { environmentId: env.id, workspacePath: only ? only.worktreePath : taskRoot, slots };
}
