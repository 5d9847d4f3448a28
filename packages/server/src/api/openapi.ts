import { z } from "zod";
import * as P from "@grove/protocol";

interface Op {
  method: "get" | "post" | "patch" | "delete";
  path: string;
  summary: string;
  body?: z.ZodType;
  response?: z.ZodType;
  status?: number;
  errors?: P.ErrorCode[];
}

/** Every operation of the HTTP API; a test checks this list equals the registered routes. */
export const OPERATIONS: Op[] = [
  { method: "get", path: "/health", summary: "Liveness, version, database kind and runner id", response: P.Health },
  { method: "post", path: "/repositories", summary: "Register a repository", body: P.CreateRepositoryBody, response: P.Repository, status: 201, errors: ["invalid_request", "path_not_absolute", "path_not_found", "not_a_git_repository", "repository_exists", "refresh_auth_failed", "refresh_network_failed", "refresh_timeout"] },
  { method: "get", path: "/repositories", summary: "List repositories", response: z.array(P.Repository) },
  { method: "get", path: "/repositories/{id}", summary: "One repository", response: P.Repository, errors: ["not_found"] },
  { method: "patch", path: "/repositories/{id}", summary: "Change checkout settings (WT-9): defaultBranch, branchTemplate, pullBeforeWorktree, copyFiles, setupScript", body: P.PatchRepositoryBody, response: P.Repository, errors: ["invalid_request", "not_found", "base_branch_not_found", "invalid_branch_name"] },
  { method: "post", path: "/tasks", summary: "Create a task", body: P.CreateTaskBody, response: P.Task, status: 201, errors: ["invalid_request", "base_branch_not_found", "invalid_branch_name"] },
  { method: "get", path: "/tasks", summary: "List tasks (?archived=true|false)", response: z.array(P.Task) },
  { method: "get", path: "/tasks/{id}", summary: "One task", response: P.Task, errors: ["not_found"] },
  { method: "patch", path: "/tasks/{id}", summary: "Edit a task or move it (e.g. to done)", body: P.PatchTaskBody, response: P.Task, errors: ["not_found"] },
  { method: "post", path: "/tasks/{id}/sessions", summary: "Start a session: the first materializes the environment, later ones attach", body: P.CreateSessionBody, response: P.Session, status: 201, errors: ["workspace_preparing", "workspace_reuse_unsafe", "task_cleanup_in_progress", "task_archived", "agent_unknown"] },
  { method: "get", path: "/tasks/{id}/sessions", summary: "Sessions of a task", response: z.array(P.Session) },
  { method: "get", path: "/tasks/{id}/environment", summary: "The task environment", response: P.Environment, errors: ["not_found"] },
  { method: "post", path: "/tasks/{id}/environment/restore", summary: "Recreate vanished worktrees in place (WT-5)", response: P.Environment, errors: ["workspace_reuse_unsafe", "branch_unrecoverable"] },
  { method: "get", path: "/tasks/{id}/changes", summary: "Changes of every worktree of the task", response: P.Changes },
  { method: "get", path: "/tasks/{id}/changes/diff", summary: "One file's patch (?repositoryId=&path=)", response: P.FileDiff, errors: ["path_outside_worktree", "not_found"] },
  { method: "post", path: "/tasks/{id}/archive", summary: "Archive: stop agents, save uncommitted work, remove worktrees (durable job, LC-2)", response: P.CleanupAccepted, status: 202, errors: ["not_found", "task_archived", "task_cleanup_in_progress"] },
  { method: "post", path: "/tasks/{id}/unarchive", summary: "Unarchive; cancels a pending archive job (LC-5)", response: P.Task, errors: ["not_found", "task_cleanup_in_progress"] },
  { method: "delete", path: "/tasks/{id}", summary: "Delete a task and its worktrees (?discardChanges=true, LC-6)", response: P.CleanupAccepted, status: 202, errors: ["not_found", "dirty_worktree", "task_cleanup_in_progress"] },
  { method: "post", path: "/tasks/{id}/environment/reset", summary: "Remove the environment's worktrees, keep branches (LC-2)", response: P.CleanupAccepted, status: 202, errors: ["not_found", "session_running", "task_archived", "task_cleanup_in_progress"] },
  { method: "get", path: "/cleanup-jobs", summary: "Cleanup jobs (?taskId=)", response: z.array(P.CleanupJob) },
  { method: "get", path: "/doctor", summary: "Read-only audit: environment rows vs git worktrees vs task directories", response: P.DoctorReport },
  { method: "get", path: "/sessions/{id}", summary: "One session", response: P.Session },
  { method: "get", path: "/sessions/{id}/messages", summary: "Messages, oldest first", response: z.array(P.Message) },
  { method: "get", path: "/sessions/{id}/workspace", summary: "The session's projected workspace (ENV-5)", response: P.WorkspaceInfo, errors: ["workspace_missing"] },
  { method: "post", path: "/sessions/{id}/prompt", summary: "Send a prompt: text, review comments composed into one prompt (marked sent), or both", body: P.PromptBody, response: P.Session, status: 202, errors: ["session_busy", "session_not_resumable", "comment_resolved", "invalid_request"] },
  { method: "post", path: "/sessions/{id}/cancel", summary: "Cancel the running turn", response: P.Session, status: 202 },
  { method: "post", path: "/sessions/{id}/resume", summary: "Resume (relaunch) the session's agent", response: P.Session, status: 202, errors: ["session_busy", "session_not_resumable"] },
  { method: "delete", path: "/sessions/{id}", summary: "Delete a session (never the workspace, SES-7)", status: 204, errors: ["session_running"] },
  { method: "get", path: "/sessions/{id}/permissions", summary: "Pending permission requests (policy ask)" },
  { method: "post", path: "/sessions/{id}/permissions/{requestId}", summary: "Answer a permission request", status: 204 },
  { method: "post", path: "/tasks/{id}/comments", summary: "Add a review comment anchored to a line (side new|old)", body: P.CreateCommentBody, response: P.Comment, status: 201, errors: ["invalid_request", "comment_anchor_invalid", "path_outside_worktree", "workspace_missing", "not_found"] },
  { method: "get", path: "/tasks/{id}/comments", summary: "Review comments of a task, with outdated computed", response: z.array(P.Comment), errors: ["not_found"] },
  { method: "patch", path: "/comments/{id}", summary: "Edit, resolve or reopen a review comment", body: P.PatchCommentBody, response: P.Comment, errors: ["invalid_request", "not_found"] },
  { method: "delete", path: "/comments/{id}", summary: "Delete a review comment", status: 204, errors: ["not_found"] },
  { method: "post", path: "/tasks/{id}/commit", summary: "Commit the worktrees' uncommitted changes (all or listed paths) as the person; hooks run unless noVerify", body: P.CommitBody, response: P.CommitResult, status: 201, errors: ["invalid_request", "nothing_to_commit", "commit_rejected", "path_outside_worktree", "workspace_missing", "task_archived"] },
  { method: "post", path: "/tasks/{id}/update-from-base", summary: "Refresh the base through the repository's route (RR-4), back up the branch (refs/grove/backup/<task>/<n>), then rebase (default) or merge onto it", body: P.UpdateFromBaseBody, response: P.UpdateResult, errors: ["merge_conflict", "dirty_worktree", "update_in_progress", "workspace_missing", "task_archived", "refresh_auth_failed", "refresh_network_failed", "refresh_timeout", "refresh_missing_ref", "refresh_base_diverged"] },
  { method: "post", path: "/tasks/{id}/update-from-base/continue", summary: "Finish an update whose conflicts were kept, once they are resolved in the files", body: P.UpdateStepBody, response: P.UpdateResult, errors: ["update_not_in_progress", "conflicts_unresolved"] },
  { method: "post", path: "/tasks/{id}/update-from-base/abort", summary: "Undo an update whose conflicts were kept: branch, index and files as before", body: P.UpdateStepBody, response: P.UpdateResult, errors: ["update_not_in_progress"] },
  { method: "post", path: "/tasks/{id}/merge", summary: "Merge the task branch into its base (local repositories): merge | squash | fast_forward computed with git merge-tree, base ref moved by compare-and-set", body: P.MergeBody, response: P.MergeResult, errors: ["merge_conflict", "base_checkout_dirty", "base_moved", "merge_not_fast_forward", "invalid_request", "workspace_missing", "task_archived"] },
  { method: "post", path: "/tasks/{id}/pull-requests", summary: "Push the task branch through the route's credential (never forced) and open a pull request through the provider's REST API; task → review", body: P.CreatePullRequestBody, response: z.array(P.PullRequest), status: 201, errors: ["pull_request_unsupported", "push_rejected", "refresh_auth_failed", "refresh_network_failed", "refresh_timeout", "provider_auth_failed", "provider_not_found", "provider_rejected", "provider_rate_limited", "provider_failed"] },
  { method: "get", path: "/tasks/{id}/pull-requests", summary: "The task's pull requests as last refreshed", response: z.array(P.PullRequest), errors: ["not_found"] },
  { method: "post", path: "/tasks/{id}/pull-requests/refresh", summary: "Refresh pull-request status now (ETags; state, checks, review decision); a merge moves the task to done", response: z.array(P.PullRequest), errors: ["provider_auth_failed", "provider_not_found", "provider_rejected", "provider_rate_limited", "provider_failed"] },
  { method: "post", path: "/tasks/{id}/pull-requests/feedback", summary: "Send failed checks and unresolved review comments to a session as one prompt", body: P.FeedbackBody, response: P.Session, status: 202, errors: ["session_busy", "session_not_resumable", "provider_auth_failed", "provider_not_found", "provider_rejected", "provider_rate_limited", "provider_failed"] },
  { method: "get", path: "/agents", summary: "Agent profiles", response: z.array(P.AgentProfile) },
  { method: "get", path: "/openapi.json", summary: "This document" },
  { method: "get", path: "/events", summary: "WebSocket event stream (frames {type,data,at})" },
  { method: "get", path: "/tasks/{id}/terminal", summary: "WebSocket: a shell in the task's worktree (?repositoryId=&cols=&rows=); frames in {type:'input',data}|{type:'resize',cols,rows}, out: output text", errors: ["terminal_unavailable", "not_found"] },
  { method: "post", path: "/tasks/{id}/open-in-editor", summary: "Open a worktree in the server's GROVE_EDITOR ({repositoryId})", status: 202, errors: ["editor_not_configured", "terminal_unavailable"] },
];

function schema(s: z.ZodType): unknown {
  return z.toJSONSchema(s, { io: "input", unrepresentable: "any" });
}

export function openApiDocument(version: string): unknown {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of OPERATIONS) {
    const responses: Record<string, unknown> = {
      [String(op.status ?? 200)]: { description: "success", ...(op.response ? { content: { "application/json": { schema: schema(op.response) } } } : {}) },
    };
    for (const code of op.errors ?? []) {
      const status = String(P.ERROR_CATALOG[code].status);
      const prev = responses[status] as { description: string } | undefined;
      responses[status] = { description: prev ? `${prev.description}, ${code}` : code };
    }
    (paths[op.path] ??= {})[op.method] = {
      summary: op.summary,
      ...(op.body ? { requestBody: { required: true, content: { "application/json": { schema: schema(op.body) } } } } : {}),
      responses,
    };
  }
  return {
    openapi: "3.1.0",
    info: { title: "Grove API", version },
    servers: [{ url: "/api/v1" }],
    components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
    paths,
  };
}
