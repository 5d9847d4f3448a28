import { z } from "zod";
import { ArchiveTaskBody, CleanupAccepted, CleanupJob, DoctorReport, MAX_PAGE_LIMIT, pageOf, Task, TrashedTask } from "../index.js";
import { operation } from "./operation.js";

/** `DELETE /tasks/:id`: LC-6 consent to lose uncommitted work. */
export const DeleteTaskQuery = z.object({ discardChanges: z.enum(["true", "false"]).optional() }).strict();

/** `GET /cleanup-jobs`: one task's jobs, paged by key. */
export const CleanupJobsQuery = z
  .object({
    taskId: z.string().min(1).max(100).optional(),
    limit: z.coerce.number().int().min(1).max(MAX_PAGE_LIMIT).optional(),
    cursor: z.string().min(1).max(1000).optional(),
  })
  .strict()
  .refine((q) => q.cursor === undefined || q.limit !== undefined, { message: "a cursor needs a limit", path: ["cursor"] });

/** Lifecycle (LC-1 … LC-8): archive, unarchive, delete and the trash, environment reset, cleanup jobs, doctor. */
export const LIFECYCLE_OPERATIONS = {
  archiveTask: operation({
    method: "post",
    path: "/tasks/{id}/archive",
    summary:
      "Archive: stop agents, save uncommitted work, remove worktrees (durable job, LC-2); a task with open subtasks needs children: archive|keep (MCP-3)",
    body: ArchiveTaskBody,
    bodyOptional: true,
    response: CleanupAccepted,
    status: 202,
    errors: ["not_found", "task_archived", "task_cleanup_in_progress", "runner_offline", "task_has_children"],
    forward: { scope: "task" },
  }),
  unarchiveTask: operation({
    method: "post",
    path: "/tasks/{id}/unarchive",
    summary: "Unarchive; cancels a pending archive job (LC-5)",
    response: Task,
    errors: ["not_found", "task_cleanup_in_progress"],
  }),
  listTrash: operation({
    method: "get",
    path: "/trash",
    summary: "LIVE-5: deleted tasks, most recently deleted first, each with purgeAt (GROVE_TRASH_RETENTION_MS after deletion)",
    response: z.array(TrashedTask),
    errors: [],
  }),
  restoreDeletedTask: operation({
    method: "post",
    path: "/tasks/{id}/restore-deleted",
    summary:
      "LIVE-5: take a task out of the trash with its sessions, transcripts, branches and saved work (a not-yet-running delete or purge job is cancelled)",
    response: Task,
    errors: ["not_found", "task_not_in_trash", "task_cleanup_in_progress"],
  }),
  deleteTask: operation({
    method: "delete",
    path: "/tasks/{id}",
    summary: "Delete a task and its worktrees (LC-6)",
    query: DeleteTaskQuery,
    queryDocs: { discardChanges: "consent to lose uncommitted work (LC-6)" },
    response: CleanupAccepted,
    status: 202,
    errors: ["not_found", "dirty_worktree", "task_cleanup_in_progress", "runner_offline"],
    forward: { scope: "task" },
  }),
  resetTaskEnvironment: operation({
    method: "post",
    path: "/tasks/{id}/environment/reset",
    summary: "Remove the environment's worktrees, keep branches (LC-2)",
    response: CleanupAccepted,
    status: 202,
    errors: ["not_found", "session_running", "task_archived", "task_cleanup_in_progress", "runner_offline"],
    forward: { scope: "task" },
  }),
  listCleanupJobs: operation({
    method: "get",
    path: "/cleanup-jobs",
    summary: "Cleanup jobs (?taskId=), oldest first; with ?limit=N[&cursor=C] one keyset page {items, nextCursor}",
    query: CleanupJobsQuery,
    queryDocs: {
      taskId: "only this task's jobs",
      limit: "page size: answers {items, nextCursor} instead of a plain array",
      cursor: "nextCursor of the previous page",
    },
    response: z.union([z.array(CleanupJob), pageOf(CleanupJob)]),
    errors: ["invalid_request"],
  }),
  auditWorktrees: operation({
    method: "get",
    path: "/doctor",
    summary: "Read-only audit: environment rows vs git worktrees vs task directories",
    response: DoctorReport,
  }),
};
