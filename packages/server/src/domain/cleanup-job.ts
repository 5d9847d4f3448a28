import type { CleanupJob } from "@grove/protocol";

/** LC-2: the lifecycle operations that may destroy workspace resources. */
export type CleanupTrigger = "archive" | "delete" | "environment_reset" | "purge";

/** LC-2: `prepared → pending → running → succeeded`, or `retry_wait`, `failed`, `cancelled`. */
export type CleanupJobState = "prepared" | "pending" | "running" | "retry_wait" | "succeeded" | "failed" | "cancelled";

/** While a job is in one of these states, the task's creation barrier is closed (LC-2). */
export const ACTIVE_CLEANUP_STATES: readonly CleanupJobState[] = ["prepared", "pending", "running", "retry_wait"];

/** States a worker may claim from, once `nextRunAt` has passed. */
export const CLAIMABLE_CLEANUP_STATES: readonly CleanupJobState[] = ["pending", "retry_wait"];

/** One worktree slot as the job saw it when it took the inventory (FLOWS "Archive" step 2). */
export interface CleanupSlot {
  /** The environment row; gone after a delete (the task row cascades). */
  rowId: string;
  repositoryId: string;
  /** Absolute path of the repository checkout the worktree belongs to. */
  repoPath: string;
  branchSlug: string;
  worktreeId: string;
  worktreePath: string;
  worktreeBranch: string;
  baseBranch: string;
  /**
   * LC-7: true only for a branch Grove created for the task (rendered from the repository's
   * branch template, not named by the person as `checkoutBranch`). Only such a branch may be
   * deleted by cleanup. Absent in snapshots written before this field existed: read as false.
   */
  branchCreatedByGrove?: boolean;
  /** Already tombstoned when the inventory was taken (nothing on disk is expected). */
  tombstoned: boolean;
}

/** A recorded agent process of one of the task's sessions (pid + start time, never pid alone). */
export interface CleanupAgentProcess {
  sessionId: string;
  pid: number;
  startTime: string;
}

/**
 * The inventory a job works from: taken after the job is reserved (so nothing can be added to
 * it, LC-2) and kept until the job ends, so a retry or a restart works on the same list even
 * when the task row (and with it the environment rows) is gone.
 */
export interface CleanupSnapshot {
  taskId: string;
  /** `$GROVE_HOME/tasks/<dir>` of the task. */
  taskRoot: string;
  environmentId: string | null;
  sessionIds: string[];
  agentProcesses: CleanupAgentProcess[];
  slots: CleanupSlot[];
}

export interface CleanupJobRecord {
  id: string;
  taskId: string;
  trigger: CleanupTrigger;
  state: CleanupJobState;
  /** The runner whose worker executes the job: the environment's runner (ST-3). */
  runnerId: string;
  attempts: number;
  maxAttempts: number;
  lastError: string | null;
  /** LC-6: a delete with explicit consent discards uncommitted work instead of saving it. */
  discardChanges: boolean;
  snapshot: CleanupSnapshot | null;
  /** When a pending / retry_wait job is due; null in every other state. */
  nextRunAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** LC-4: 1 min, 5 min, 15 min, 1 h, then 4 h between attempts. */
export const CLEANUP_BACKOFF_MS: readonly number[] = [60_000, 5 * 60_000, 15 * 60_000, 60 * 60_000, 4 * 60 * 60_000];

/** LC-4: attempts before a job is `failed` for good (its last error is kept). */
export const CLEANUP_MAX_ATTEMPTS = 6;

/** Delay before attempt `attempts + 1` after `attempts` failed ones (1-based: after the first failure, 1 min). */
export function cleanupBackoffMs(attempts: number, schedule: readonly number[] = CLEANUP_BACKOFF_MS): number {
  const i = Math.min(Math.max(attempts, 1), schedule.length) - 1;
  return schedule[i] ?? 60_000;
}

/** The public `CleanupJob` shape of `@grove/protocol` (the snapshot stays internal). */
export function cleanupJobView(j: CleanupJobRecord): CleanupJob {
  return {
    id: j.id,
    taskId: j.taskId,
    trigger: j.trigger,
    state: j.state,
    attempts: j.attempts,
    lastError: j.lastError,
    nextRunAt: j.nextRunAt,
    createdAt: j.createdAt,
    updatedAt: j.updatedAt,
  };
}
