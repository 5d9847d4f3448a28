import type { Selectable } from "kysely";
import {
  ACTIVE_CLEANUP_STATES,
  CLAIMABLE_CLEANUP_STATES,
  type CleanupJobRecord,
  type CleanupJobState,
  type CleanupSnapshot,
  type CleanupTrigger,
} from "../domain/cleanup-job.js";
import { AppError, notFound } from "../domain/errors.js";
import type { CleanupJobsTable, Ctx, Db } from "./schema.js";
import { fromDbBool, toDbBool } from "./schema.js";
import { lockTask } from "./tasks-repo.js";

export function toJob(r: Selectable<CleanupJobsTable>): CleanupJobRecord {
  return {
    id: r.id,
    taskId: r.task_id,
    trigger: r.trigger as CleanupTrigger,
    state: r.state as CleanupJobState,
    runnerId: r.runner_id,
    attempts: Number(r.attempts),
    maxAttempts: Number(r.max_attempts),
    lastError: r.last_error,
    discardChanges: fromDbBool(r.discard_changes),
    snapshot: r.snapshot === null ? null : (JSON.parse(r.snapshot) as CleanupSnapshot),
    nextRunAt: r.next_run_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

export async function getCleanupJob(db: Db, id: string): Promise<CleanupJobRecord | undefined> {
  const row = await db.selectFrom("cleanup_jobs").selectAll().where("id", "=", id).executeTakeFirst();
  return row && toJob(row);
}

/** Oldest first; jobs of deleted tasks included. */
export async function listCleanupJobs(db: Db, taskId?: string): Promise<CleanupJobRecord[]> {
  let q = db.selectFrom("cleanup_jobs").selectAll();
  if (taskId !== undefined) q = q.where("task_id", "=", taskId);
  const rows = await q.orderBy("created_at").orderBy("id").execute();
  return rows.map(toJob);
}

export async function activeCleanupJob(db: Db, taskId: string): Promise<CleanupJobRecord | undefined> {
  const row = await db.selectFrom("cleanup_jobs").selectAll().where("task_id", "=", taskId).where("state", "in", ACTIVE_CLEANUP_STATES).executeTakeFirst();
  return row && toJob(row);
}

/**
 * LC-2 creation barrier, inside the caller's transaction: refuses while a job of the task is
 * active, and for an archived task (a launch that was already materializing when the archive
 * job ran must not add a row after the job has finished).
 */
export async function creationBarrier(db: Db, taskId: string): Promise<void> {
  const task = await db.selectFrom("tasks").select("archived_at").where("id", "=", taskId).executeTakeFirst();
  if (task && task.archived_at !== null) throw new AppError("task_archived", `task ${taskId} is archived`, { taskId });
  await assertNoActiveCleanup(db, taskId);
}

/** Refuses (`task_cleanup_in_progress`) while a job of the task is active. */
export async function assertNoActiveCleanup(db: Db, taskId: string): Promise<void> {
  const job = await activeCleanupJob(db, taskId);
  if (job) {
    throw new AppError("task_cleanup_in_progress", `a ${job.trigger} cleanup of task ${taskId} is ${job.state}`, { taskId, jobId: job.id, state: job.state });
  }
}

export interface ReserveCleanupInput {
  job: CleanupJobRecord;
  /** archive / reset: an archived task is refused (`task_archived`). */
  refuseArchived: boolean;
  /** reset: refused while a session of the task is starting or running (`session_running`). */
  refuseRunningSessions: boolean;
}

/**
 * FLOWS "Archive" step 1, inside the caller's transaction: lock the task row, refuse a missing
 * task, a second active job and the trigger's own conditions, then insert the job `prepared`.
 * From this commit on the creation barrier is closed for the task.
 */
export async function reserveCleanupJob(ctx: Ctx, input: ReserveCleanupInput): Promise<CleanupJobRecord> {
  const { job } = input;
  const task = await lockTask(ctx, job.taskId);
  if (!task) throw notFound("task", job.taskId);
  if (input.refuseArchived && task.archived_at !== null) throw new AppError("task_archived", `task ${job.taskId} is archived`, { taskId: job.taskId });
  await assertNoActiveCleanup(ctx.db, job.taskId);
  if (input.refuseRunningSessions) {
    const busy = await ctx.db
      .selectFrom("sessions")
      .select(["id", "state"])
      .where("task_id", "=", job.taskId)
      .where("state", "in", ["starting", "running"])
      .executeTakeFirst();
    if (busy) throw new AppError("session_running", `session ${busy.id} of task ${job.taskId} is ${busy.state}`, { sessionId: busy.id, taskId: job.taskId });
  }
  await ctx.db
    .insertInto("cleanup_jobs")
    .values({
      id: job.id,
      task_id: job.taskId,
      trigger: job.trigger,
      state: "prepared",
      runner_id: job.runnerId,
      attempts: 0,
      max_attempts: job.maxAttempts,
      last_error: null,
      discard_changes: toDbBool(ctx.dialect, job.discardChanges),
      snapshot: null,
      next_run_at: null,
      created_at: job.createdAt,
      updated_at: job.updatedAt,
    })
    .execute();
  return { ...job, state: "prepared", attempts: 0, lastError: null, snapshot: null, nextRunAt: null };
}

/** FLOWS step 2: the inventory, written while the job is still `prepared`. */
export async function setCleanupSnapshot(db: Db, id: string, snapshot: CleanupSnapshot, now: string): Promise<boolean> {
  const r = await db
    .updateTable("cleanup_jobs")
    .set({ snapshot: JSON.stringify(snapshot), updated_at: now })
    .where("id", "=", id)
    .where("state", "=", "prepared")
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/**
 * FLOWS step 3, inside the caller's transaction: the task mutation (archive: `archivedAt`;
 * delete: the task row, whose environment, rows and sessions cascade; reset: none) and
 * `prepared → pending` commit together, so a crash leaves either both or neither.
 */
export async function activateCleanupJob(ctx: Ctx, id: string, now: string): Promise<CleanupJobRecord> {
  const job = await getCleanupJob(ctx.db, id);
  if (!job || job.state !== "prepared") throw new AppError("task_cleanup_in_progress", `cleanup job ${id} is no longer prepared`, { jobId: id });
  await lockTask(ctx, job.taskId);
  if (job.trigger === "archive") {
    await ctx.db.updateTable("tasks").set({ archived_at: now, updated_at: now }).where("id", "=", job.taskId).execute();
  } else if (job.trigger === "delete") {
    // LIVE-5: into the trash; the purge job removes the row after the retention period.
    await ctx.db.updateTable("tasks").set({ deleted_at: now, updated_at: now }).where("id", "=", job.taskId).execute();
  }
  const row = await ctx.db
    .updateTable("cleanup_jobs")
    .set({ state: "pending", next_run_at: now, updated_at: now })
    .where("id", "=", id)
    .where("state", "=", "prepared")
    .returningAll()
    .executeTakeFirstOrThrow();
  return toJob(row);
}

/** Removes a job that never became active (LC-6: a refused delete leaves no job). */
export async function discardPreparedJob(db: Db, id: string): Promise<void> {
  await db.deleteFrom("cleanup_jobs").where("id", "=", id).where("state", "=", "prepared").execute();
}

/** ST-3: the one claim. A due pending / retry_wait job of this runner → `running`, attempts + 1. */
export async function claimCleanupJob(db: Db, id: string, runnerId: string, now: string): Promise<CleanupJobRecord | undefined> {
  const row = await db
    .updateTable("cleanup_jobs")
    .set((eb) => ({ state: "running", attempts: eb("attempts", "+", 1), next_run_at: null, updated_at: now }))
    .where("id", "=", id)
    .where("runner_id", "=", runnerId)
    .where("state", "in", CLAIMABLE_CLEANUP_STATES)
    .where("next_run_at", "<=", now)
    .returningAll()
    .executeTakeFirst();
  return row && toJob(row);
}

/** Ids of this runner's jobs due at `now`, oldest first. */
export async function dueCleanupJobIds(db: Db, runnerId: string, now: string): Promise<string[]> {
  const rows = await db
    .selectFrom("cleanup_jobs")
    .select("id")
    .where("runner_id", "=", runnerId)
    .where("state", "in", CLAIMABLE_CLEANUP_STATES)
    .where("next_run_at", "<=", now)
    .orderBy("next_run_at")
    .orderBy("id")
    .execute();
  return rows.map((r) => r.id);
}

/** The earliest `nextRunAt` of this runner's waiting jobs (the worker's only timer), or null. */
export async function nextCleanupDueAt(db: Db, runnerId: string): Promise<string | null> {
  const row = await db
    .selectFrom("cleanup_jobs")
    .select((eb) => eb.fn.min("next_run_at").as("at"))
    .where("runner_id", "=", runnerId)
    .where("state", "in", CLAIMABLE_CLEANUP_STATES)
    .executeTakeFirst();
  return (row?.at as string | null | undefined) ?? null;
}

/** Ends a claimed attempt: `succeeded`, `retry_wait` (with nextRunAt) or `failed`, keeping the error. CAS from `running`. */
export async function finishCleanupAttempt(
  db: Db,
  id: string,
  outcome: { state: "succeeded" } | { state: "retry_wait"; error: string; nextRunAt: string } | { state: "failed"; error: string },
  now: string,
): Promise<CleanupJobRecord | undefined> {
  const row = await db
    .updateTable("cleanup_jobs")
    .set({
      state: outcome.state,
      ...(outcome.state === "succeeded" ? {} : { last_error: outcome.error }),
      next_run_at: outcome.state === "retry_wait" ? outcome.nextRunAt : null,
      updated_at: now,
    })
    .where("id", "=", id)
    .where("state", "=", "running")
    .returningAll()
    .executeTakeFirst();
  return row && toJob(row);
}

/**
 * LC-4 start-up for one runner, inside the caller's transaction: `running` jobs become due
 * again; a `prepared` job is activated when its task mutation committed (archive: the task is
 * archived; delete: the task row is gone) and it has its snapshot, otherwise cancelled.
 * Returns the jobs whose state changed.
 */
export async function recoverCleanupJobs(db: Db, runnerId: string, now: string): Promise<CleanupJobRecord[]> {
  const changed: CleanupJobRecord[] = [];
  const running = await db
    .updateTable("cleanup_jobs")
    .set({ state: "pending", next_run_at: now, updated_at: now })
    .where("runner_id", "=", runnerId)
    .where("state", "=", "running")
    .returningAll()
    .execute();
  changed.push(...running.map(toJob));
  const prepared = await db.selectFrom("cleanup_jobs").selectAll().where("runner_id", "=", runnerId).where("state", "=", "prepared").execute();
  for (const row of prepared.map(toJob)) {
    const task = await db.selectFrom("tasks").select(["archived_at", "deleted_at"]).where("id", "=", row.taskId).executeTakeFirst();
    // Delete: in the trash (LIVE-5), or gone (a delete of a version before the trash).
    const committed = row.trigger === "archive" ? task?.archived_at != null : row.trigger === "delete" ? task === undefined || task.deleted_at != null : false;
    const to = committed && row.snapshot !== null ? "pending" : "cancelled";
    const updated = await db
      .updateTable("cleanup_jobs")
      .set({
        state: to,
        next_run_at: to === "pending" ? now : null,
        ...(to === "cancelled" ? { last_error: "the server stopped before the task mutation committed" } : {}),
        updated_at: now,
      })
      .where("id", "=", row.id)
      .where("state", "=", "prepared")
      .returningAll()
      .executeTakeFirst();
    if (updated) changed.push(toJob(updated));
  }
  return changed;
}

/**
 * LC-5, inside the caller's transaction: clears `archivedAt` and cancels the task's archive job
 * if it has not started (`prepared`, `pending`, `retry_wait`). A job that is `running` (or of
 * another trigger) refuses with `task_cleanup_in_progress`. Returns the cancelled job, if any.
 */
export async function unarchiveTask(ctx: Ctx, taskId: string, now: string): Promise<CleanupJobRecord | undefined> {
  const task = await lockTask(ctx, taskId);
  if (!task) throw notFound("task", taskId);
  const cancelled = await cancelUnstartedJob(ctx, taskId, ["archive"], now);
  if (task.archived_at !== null) await ctx.db.updateTable("tasks").set({ archived_at: null, updated_at: now }).where("id", "=", taskId).execute();
  return cancelled;
}

/**
 * Inside the caller's transaction: cancels the task's active cleanup job if it is of one of
 * `triggers` and has not started (`prepared`, `pending`, `retry_wait`), by compare-and-set. A
 * job that is `running`, of another trigger, or that changed state meanwhile refuses with
 * `task_cleanup_in_progress`. Returns the cancelled job; undefined when the task had none.
 */
export async function cancelUnstartedJob(ctx: Ctx, taskId: string, triggers: readonly CleanupTrigger[], now: string): Promise<CleanupJobRecord | undefined> {
  const job = await activeCleanupJob(ctx.db, taskId);
  if (!job) return undefined;
  if (job.state === "running" || !triggers.includes(job.trigger)) {
    throw new AppError("task_cleanup_in_progress", `a ${job.trigger} cleanup of task ${taskId} is ${job.state}`, { taskId, jobId: job.id, state: job.state });
  }
  const row = await ctx.db
    .updateTable("cleanup_jobs")
    .set({ state: "cancelled", next_run_at: null, updated_at: now })
    .where("id", "=", job.id)
    .where("state", "in", ["prepared", "pending", "retry_wait"])
    .returningAll()
    .executeTakeFirst();
  if (!row) throw new AppError("task_cleanup_in_progress", `cleanup job ${job.id} changed state; try again`, { taskId, jobId: job.id });
  return toJob(row);
}
