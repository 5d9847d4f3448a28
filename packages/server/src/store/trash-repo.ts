import { AppError, notFound } from "../domain/errors.js";
import type { CleanupJobRecord } from "../domain/cleanup-job.js";
import { activeCleanupJob, cancelUnstartedJob, toJob } from "./cleanup-jobs-repo.js";
import type { Ctx } from "./schema.js";
import { toDbBool } from "./schema.js";
import { lockTask } from "./tasks-repo.js";

/**
 * LIVE-5, inside the caller's transaction: the task leaves the trash. A delete or purge job that
 * has not started is cancelled (compare-and-set); one that is `running` refuses with
 * `task_cleanup_in_progress` — its attempt finishes first, then restore works (after the delete
 * job) or the task is gone (after the purge). Returns the cancelled job, if any.
 */
export async function restoreDeletedTask(ctx: Ctx, taskId: string, now: string): Promise<CleanupJobRecord | undefined> {
  const task = await lockTask(ctx, taskId);
  if (!task) throw notFound("task", taskId);
  if (task.deleted_at === null) throw new AppError("task_not_in_trash", `task ${taskId} is not in the trash`, { taskId });
  const cancelled = await cancelUnstartedJob(ctx, taskId, ["delete", "purge"], now);
  await ctx.db.updateTable("tasks").set({ deleted_at: null, updated_at: now }).where("id", "=", taskId).where("deleted_at", "is not", null).execute();
  return cancelled;
}

/**
 * LIVE-5, inside the caller's transaction: the purge job of a task in the trash, `pending` and
 * due at `job.nextRunAt` (deletion + retention). Inserted only while the task is still in the
 * trash and no job of it is active (the delete job has finished, no purge is scheduled yet), so
 * concurrent schedulers and a restore never leave two. Undefined when nothing was inserted.
 */
export async function insertPurgeJob(ctx: Ctx, job: CleanupJobRecord): Promise<CleanupJobRecord | undefined> {
  const task = await lockTask(ctx, job.taskId);
  if (!task || task.deleted_at === null) return undefined;
  if (await activeCleanupJob(ctx.db, job.taskId)) return undefined;
  const row = await ctx.db
    .insertInto("cleanup_jobs")
    .values({
      id: job.id,
      task_id: job.taskId,
      trigger: "purge",
      state: "pending",
      runner_id: job.runnerId,
      attempts: 0,
      max_attempts: job.maxAttempts,
      last_error: null,
      discard_changes: toDbBool(ctx.dialect, true),
      snapshot: job.snapshot ? JSON.stringify(job.snapshot) : null,
      next_run_at: job.nextRunAt,
      created_at: job.createdAt,
      updated_at: job.updatedAt,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toJob(row);
}

/** LIVE-5: ids of the tasks in the trash with no active job (their purge is not scheduled yet). */
export async function trashWithoutPurge(ctx: Ctx): Promise<string[]> {
  const rows = await ctx.db
    .selectFrom("tasks")
    .select("id")
    .where("deleted_at", "is not", null)
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom("cleanup_jobs")
            .select("cleanup_jobs.id")
            .whereRef("cleanup_jobs.task_id", "=", "tasks.id")
            .where("cleanup_jobs.state", "in", ["prepared", "pending", "running", "retry_wait"]),
        ),
      ),
    )
    .execute();
  return rows.map((r) => r.id);
}
