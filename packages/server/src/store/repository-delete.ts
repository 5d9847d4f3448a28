import { AppError } from "../domain/errors.js";
import type { Ctx } from "./schema.js";

/** Cleanup jobs that may still need a repository: everything not finished for good. */
const ACTIVE_JOB_STATES = ["prepared", "pending", "running", "retry_wait"];

/**
 * Deletes a repository row and its credential in the caller's transaction, unless something
 * refers to it: a task (archived ones included, their attachments stay), an environment row,
 * or an unfinished cleanup job whose snapshot names it (a deleted task's job still has
 * worktrees of it to remove). Refusal → `409 repository_in_use` with the referring task ids;
 * unknown id → `404 not_found`. The repositories foreign keys back this up: a reference added
 * by a concurrent transaction makes the delete fail with the same code.
 */
export async function deleteRepositoryIfUnused({ db, dialect }: Ctx, id: string): Promise<void> {
  const forUpdate = <Q extends { forUpdate(): Q }>(q: Q): Q => (dialect === "postgres" ? q.forUpdate() : q);
  const row = await forUpdate(db.selectFrom("repositories").select("id").where("id", "=", id)).executeTakeFirst();
  if (!row) throw new AppError("not_found", `repository ${id} not found`, { id });
  const attached = await db.selectFrom("task_repositories").select("task_id").where("repository_id", "=", id).execute();
  const inEnvironments = await db
    .selectFrom("task_environment_repos")
    .innerJoin("task_environments", "task_environments.id", "task_environment_repos.environment_id")
    .select("task_environments.task_id")
    .where("task_environment_repos.repository_id", "=", id)
    .execute();
  const jobs = await db.selectFrom("cleanup_jobs").select("task_id").where("state", "in", ACTIVE_JOB_STATES).where("snapshot", "like", `%${id}%`).execute();
  const taskIds = [...new Set([...attached, ...inEnvironments, ...jobs].map((r) => r.task_id))];
  if (taskIds.length > 0) throw inUse(id, taskIds);
  try {
    await db.deleteFrom("repository_credentials").where("repository_id", "=", id).execute();
    await db.deleteFrom("repositories").where("id", "=", id).execute();
  } catch (e) {
    if (isForeignKeyViolation(e)) throw inUse(id, []);
    throw e;
  }
}

function inUse(id: string, taskIds: string[]): AppError {
  const which = taskIds.length > 0 ? `task(s) ${taskIds.join(", ")} (archived ones included) refer to it` : "something still refers to it";
  return new AppError("repository_in_use", `repository ${id} is in use: ${which}; delete those tasks first`, { id, taskIds });
}

/** pg: SQLSTATE 23503; better-sqlite3: SQLITE_CONSTRAINT_FOREIGNKEY. */
function isForeignKeyViolation(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return code === "23503" || code === "SQLITE_CONSTRAINT_FOREIGNKEY";
}
