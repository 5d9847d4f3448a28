import { CLEANUP_MAX_ATTEMPTS, type CleanupJobRecord, type CleanupTrigger } from "../../domain/cleanup-job.js";
import { AppError } from "../../domain/errors.js";
import { newId } from "../../domain/ids.js";
import type { TaskRecord } from "../../domain/records.js";
import { taskView } from "../../domain/views.js";
import { publishJob } from "./cleanup-events.js";
import { assertClean, takeInventory } from "./cleanup-inventory.js";
import type { CleanupWorker } from "./cleanup-worker.js";
import type { Deps } from "../context.js";
import { faultPoint } from "../fault-points.js";
import { getTaskOr404 } from "../tasks/tasks.js";

/** The ports (orchestrator/context.ts) requestCleanup uses. */
export type RequestCleanupPorts = Pick<Deps, "store" | "worktrees" | "bus" | "home" | "runnerId" | "now" | "remote">;

/**
 * Lifecycle requests (LC-1 … LC-6; FLOWS "Archive"): archive, delete and environment reset are
 * the only operations that remove workspace resources, and they do it only through a durable
 * cleanup job. The request side runs steps 1–3 and answers `202 {jobId}`; the worker does the
 * rest.
 */
export async function requestCleanup(
  deps: RequestCleanupPorts,
  worker: CleanupWorker,
  taskId: string,
  trigger: CleanupTrigger,
  opts: { discardChanges?: boolean } = {},
): Promise<CleanupJobRecord> {
  const task = await getTaskOr404(deps, taskId);
  const env = await deps.store.getEnvironmentByTask(taskId);
  if (trigger === "environment_reset" && !env) throw new AppError("not_found", `task ${taskId} has no environment`, { taskId });
  const now = deps.now();
  const draft: CleanupJobRecord = {
    id: newId("job"),
    taskId,
    trigger,
    state: "prepared",
    // ST-3: the runner that owns the environment's worktrees (and agent processes) runs the job.
    runnerId: env?.runnerId ?? deps.runnerId,
    attempts: 0,
    maxAttempts: CLEANUP_MAX_ATTEMPTS,
    lastError: null,
    discardChanges: opts.discardChanges === true,
    snapshot: null,
    nextRunAt: null,
    createdAt: now,
    updatedAt: now,
  };
  // Step 1: from this commit on, no session, environment or row can be added to the task.
  const job = await deps.store.reserveCleanupJob({
    job: draft,
    refuseArchived: trigger !== "delete",
    refuseRunningSessions: trigger === "environment_reset",
  });
  publishJob(deps, job);
  await faultPoint("archive.after_reserve");
  let active: CleanupJobRecord;
  try {
    // Step 2: the inventory. LC-6: a delete of dirty work without consent leaves no job.
    const snapshot = await takeInventory(deps, task);
    if (trigger === "delete" && !opts.discardChanges) await assertClean(deps, snapshot);
    if (!(await deps.store.setCleanupSnapshot(job.id, snapshot, deps.now()))) {
      throw new AppError("task_cleanup_in_progress", `cleanup job ${job.id} changed state`, { jobId: job.id });
    }
    await faultPoint("archive.after_snapshot");
    // Step 3: the task mutation and `pending`, in one transaction.
    active = await deps.store.activateCleanupJob(job.id, deps.now());
  } catch (e) {
    await deps.store.discardPreparedCleanupJob(job.id);
    publishJob(deps, { ...job, state: "cancelled", updatedAt: deps.now() });
    throw e;
  }
  await publishTaskChange(deps, task, trigger);
  publishJob(deps, active);
  await faultPoint("archive.after_commit");
  worker.kick();
  return active;
}

async function publishTaskChange(deps: Pick<Deps, "store" | "bus">, task: TaskRecord, trigger: CleanupTrigger): Promise<void> {
  if (trigger === "delete") {
    deps.bus.publish("task.deleted", { taskId: task.id });
    return;
  }
  const fresh = await deps.store.getTask(task.id);
  if (fresh) deps.bus.publish("task.updated", { task: taskView(fresh) });
}

/**
 * LC-5: clears `archivedAt` and cancels the archive job unless it already runs (then `409
 * task_cleanup_in_progress`). The next session recreates the tombstoned worktrees on their
 * branches and restores the work saved on the private ref (see lifecycle-restore.ts).
 */
export async function unarchiveTask(deps: Pick<Deps, "store" | "bus" | "now">, taskId: string): Promise<TaskRecord> {
  await getTaskOr404(deps, taskId);
  const cancelled = await deps.store.unarchiveTask(taskId, deps.now());
  publishJob(deps, cancelled);
  const task = await getTaskOr404(deps, taskId);
  deps.bus.publish("task.updated", { task: taskView(task) });
  return task;
}

/** `GET /cleanup-jobs?taskId=`: oldest first (jobs of deleted tasks stay listed). */
export function listCleanupJobs(deps: Pick<Deps, "store">, taskId: string | undefined): Promise<CleanupJobRecord[]> {
  return deps.store.listCleanupJobs(taskId);
}

/**
 * Prompt and resume may relaunch an agent and recreate a vanished worktree (WT-5); neither may
 * happen on an archived task or while a cleanup of the task is active, or cleanup would race
 * with it.
 */
export async function assertTaskWorkable(deps: Pick<Deps, "store">, taskId: string): Promise<void> {
  const task = await deps.store.getTask(taskId);
  if (!task) throw new AppError("not_found", `task ${taskId} not found`, { taskId });
  if (task.archivedAt) throw new AppError("task_archived", `task ${taskId} is archived; unarchive it first`, { taskId });
  const job = await deps.store.activeCleanupJob(taskId);
  if (job)
    throw new AppError("task_cleanup_in_progress", `a ${job.trigger} cleanup of task ${taskId} is ${job.state}`, { taskId, jobId: job.id, state: job.state });
}
