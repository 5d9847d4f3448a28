import type { RepositoryRecord, TaskRepositoryRecord } from "../domain/records.js";

// The types the worktree and refresh steps of a launch pass each other. They live apart from
// materialize.ts and refresh.ts so those two can call each other's helpers without a circle.

/** A slot as planned from the task's attachments: identity, location and branch. */
export interface PlannedSlot {
  attachment: TaskRepositoryRecord;
  repository: RepositoryRecord;
  branchSlug: string;
  worktreePath: string;
  branch: string;
}

/** Per-launch context a refresh needs for typed, scoped errors (RR-7). */
export interface RefreshContext {
  taskId: string;
  /** Absent for a task-level operation (`POST /tasks/:id/environment/restore`). */
  sessionId?: string | undefined;
}
