import type { Selectable } from "kysely";
import type { MergeOp } from "../domain/environment-merge.js";
import type { EnvironmentRecord, EnvironmentRepoRecord, EnvironmentStatus } from "../domain/records.js";
import { newId } from "../domain/ids.js";
import type { Db, TaskEnvironmentReposTable, TaskEnvironmentsTable } from "./schema.js";

export function toEnvironment(r: Selectable<TaskEnvironmentsTable>): EnvironmentRecord {
  return {
    id: r.id,
    taskId: r.task_id,
    status: r.status as EnvironmentStatus,
    workspacePath: r.workspace_path,
    runnerId: r.runner_id,
    materializerSessionId: r.materializer_session_id,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

export function toEnvRepo(r: Selectable<TaskEnvironmentReposTable>): EnvironmentRepoRecord {
  return {
    id: r.id,
    environmentId: r.environment_id,
    repositoryId: r.repository_id,
    branchSlug: r.branch_slug,
    worktreeId: r.worktree_id,
    worktreePath: r.worktree_path,
    worktreeBranch: r.worktree_branch,
    baseBranch: r.base_branch,
    position: r.position,
    status: r.status as EnvironmentRepoRecord["status"],
    errorMessage: r.error_message,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    deletedAt: r.deleted_at,
  };
}

export async function getEnvironment(db: Db, id: string): Promise<EnvironmentRecord | undefined> {
  const row = await db.selectFrom("task_environments").selectAll().where("id", "=", id).executeTakeFirst();
  return row && toEnvironment(row);
}

export async function getEnvironmentByTask(db: Db, taskId: string): Promise<EnvironmentRecord | undefined> {
  const row = await db.selectFrom("task_environments").selectAll().where("task_id", "=", taskId).executeTakeFirst();
  return row && toEnvironment(row);
}

export async function insertEnvironment(db: Db, e: EnvironmentRecord): Promise<void> {
  await db
    .insertInto("task_environments")
    .values({
      id: e.id,
      task_id: e.taskId,
      status: e.status,
      workspace_path: e.workspacePath,
      runner_id: e.runnerId,
      materializer_session_id: e.materializerSessionId,
      created_at: e.createdAt,
      updated_at: e.updatedAt,
    })
    .execute();
}

/** Every row of the environment, tombstones included, by position then creation. */
export async function listEnvironmentRepos(db: Db, environmentId: string): Promise<EnvironmentRepoRecord[]> {
  const rows = await db
    .selectFrom("task_environment_repos")
    .selectAll()
    .where("environment_id", "=", environmentId)
    .orderBy("position")
    .orderBy("created_at")
    .orderBy("id")
    .execute();
  return rows.map(toEnvRepo);
}

/**
 * Applies ENV-2/ENV-3 merge operations as planned by `planEnvironmentMerge`; the plan is
 * the only place that decides what may change (the tuple only from concrete results).
 */
export async function applyMergeOps(db: Db, environmentId: string, ops: readonly MergeOp[], now: string): Promise<void> {
  for (const op of ops) {
    if (op.kind === "insert") {
      const r = op.row;
      await db
        .insertInto("task_environment_repos")
        .values({
          id: newId("envrepo"),
          environment_id: environmentId,
          repository_id: r.repositoryId,
          branch_slug: r.branchSlug,
          worktree_id: r.worktreeId,
          worktree_path: r.worktreePath,
          worktree_branch: r.worktreeBranch,
          base_branch: r.baseBranch,
          position: r.position,
          status: r.status,
          error_message: r.errorMessage,
          created_at: now,
          updated_at: now,
          deleted_at: r.deletedAt,
        })
        .execute();
      continue;
    }
    const p = op.patch;
    await db
      .updateTable("task_environment_repos")
      .set({
        ...(p.branchSlug !== undefined && { branch_slug: p.branchSlug }),
        ...(p.baseBranch !== undefined && { base_branch: p.baseBranch }),
        ...(p.position !== undefined && { position: p.position }),
        ...(p.errorMessage !== undefined && { error_message: p.errorMessage }),
        ...(p.worktreeId !== undefined && { worktree_id: p.worktreeId }),
        ...(p.worktreePath !== undefined && { worktree_path: p.worktreePath }),
        ...(p.worktreeBranch !== undefined && { worktree_branch: p.worktreeBranch }),
        ...(p.status !== undefined && { status: p.status }),
        ...(p.deletedAt !== undefined && { deleted_at: p.deletedAt }),
        updated_at: now,
      })
      .where("id", "=", op.rowId)
      .where("environment_id", "=", environmentId)
      .execute();
  }
}

/** Compare-and-set of the environment status; clears the materializer. */
export async function setEnvironmentStatus(
  db: Db,
  environmentId: string,
  from: readonly EnvironmentStatus[],
  to: EnvironmentStatus,
  patch: { workspacePath?: string | null },
  now: string,
): Promise<EnvironmentRecord | undefined> {
  if (from.length === 0) return undefined;
  const row = await db
    .updateTable("task_environments")
    .set({
      status: to,
      materializer_session_id: null,
      ...(patch.workspacePath !== undefined && { workspace_path: patch.workspacePath }),
      updated_at: now,
    })
    .where("id", "=", environmentId)
    .where("status", "in", from)
    .returningAll()
    .executeTakeFirst();
  return row && toEnvironment(row);
}

/** ENV-4: the row stays, with its tuple, so unarchive can recreate the worktree. */
export async function tombstoneEnvironmentRepo(db: Db, rowId: string, now: string): Promise<void> {
  await db.updateTable("task_environment_repos").set({ status: "deleted", deleted_at: now, updated_at: now }).where("id", "=", rowId).execute();
}

/**
 * WT-7 only: undoes a row that this same failed launch attempt inserted for a worktree it
 * has just removed again. Anything else tombstones (ENV-4).
 */
export async function deleteEnvironmentRepo(db: Db, rowId: string): Promise<void> {
  await db.deleteFrom("task_environment_repos").where("id", "=", rowId).execute();
}

/** Deletes the environment; its rows cascade, sessions keep existing with no environment. */
export async function deleteEnvironment(db: Db, environmentId: string): Promise<void> {
  await db.deleteFrom("task_environments").where("id", "=", environmentId).execute();
}
