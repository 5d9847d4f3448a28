import type { TrashedTask } from "@grove/protocol";
import { CLEANUP_MAX_ATTEMPTS, type CleanupJobRecord } from "../../domain/cleanup-job.js";
import { AppError } from "../../domain/errors.js";
import { newId } from "../../domain/ids.js";
import type { TaskRecord } from "../../domain/records.js";
import { taskView } from "../../domain/views.js";
import type { Deps } from "../context.js";
import { publishJob } from "./cleanup-events.js";
import { takeInventory } from "./cleanup-inventory.js";

const DEFAULT_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

/** LIVE-5: when a trashed task is purged (config.ts reads `GROVE_TRASH_RETENTION_MS`; default 7 days). */
function purgeAt(deps: Pick<Deps, "trashRetentionMs">, task: TaskRecord): string {
  return new Date(Date.parse(task.deletedAt!) + (deps.trashRetentionMs ?? DEFAULT_RETENTION_MS)).toISOString();
}

/** `GET /trash`: the deleted tasks, most recently deleted first, each with when it is purged. */
export async function listTrash(deps: Pick<Deps, "store" | "trashRetentionMs">): Promise<TrashedTask[]> {
  return (await deps.store.listTrash()).map((t) => ({ ...taskView(t), deletedAt: t.deletedAt!, purgeAt: purgeAt(deps, t) }));
}

/**
 * `POST /tasks/:id/restore-deleted` (LIVE-5): the task is back as it was when deleted — its
 * sessions and transcripts were never removed; its worktrees come back with the next session on
 * their branches, with the saved uncommitted work restored (as after unarchive, LC-5/LC-8).
 */
export async function restoreDeletedTask(deps: Pick<Deps, "store" | "bus" | "now">, taskId: string): Promise<TaskRecord> {
  const cancelled = await deps.store.restoreDeletedTask(taskId, deps.now());
  if (cancelled) publishJob(deps, cancelled);
  const task = await deps.store.getTask(taskId);
  if (!task) throw new AppError("not_found", `task ${taskId} not found`, { taskId });
  deps.bus.publish("task.created", { task: taskView(task) });
  return task;
}

/** The ports (orchestrator/context.ts) schedulePurges uses. */
export type SchedulePurgesPorts = Pick<Deps, "store" | "bus" | "home" | "runnerId" | "now" | "remote" | "trashRetentionMs">;

/**
 * LIVE-5: every trashed task of this runner whose delete job has finished gets its purge job,
 * `pending` and due when the retention ends — a durable cleanup job like any other (claimed by
 * compare-and-set, retried with backoff, recovered after a restart). Called by the cleanup
 * worker before each look for due jobs; the insert re-checks in one transaction that the task is
 * still in the trash with no active job, so a restore or another runner never gets a second one.
 */
export async function schedulePurges(deps: SchedulePurgesPorts): Promise<CleanupJobRecord[]> {
  const out: CleanupJobRecord[] = [];
  for (const taskId of await deps.store.trashWithoutPurge()) {
    const task = await deps.store.getTaskAnyState(taskId);
    if (!task?.deletedAt) continue;
    const env = await deps.store.getEnvironmentByTask(taskId);
    const runnerId = env?.runnerId ?? deps.runnerId;
    if (runnerId !== deps.runnerId) continue; // that runner holds the worktrees and purges them
    const now = deps.now();
    const job: CleanupJobRecord = {
      id: newId("job"),
      taskId,
      trigger: "purge",
      state: "pending",
      runnerId,
      attempts: 0,
      maxAttempts: CLEANUP_MAX_ATTEMPTS,
      lastError: null,
      discardChanges: true,
      snapshot: await takeInventory(deps, task),
      nextRunAt: purgeAt(deps, task),
      createdAt: now,
      updatedAt: now,
    };
    const inserted = await deps.store.insertPurgeJob(job);
    if (inserted) {
      publishJob(deps, inserted);
      out.push(inserted);
    }
  }
  return out;
}
