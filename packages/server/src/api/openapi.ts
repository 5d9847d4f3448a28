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
  { method: "post", path: "/tasks/{id}/sessions", summary: "Start a session: the first materializes the environment, later ones attach", body: P.CreateSessionBody, response: P.Session, status: 201, errors: ["workspace_preparing", "workspace_reuse_unsafe", "task_cleanup_in_progress", "task_archived", "agent_unknown", "agent_unavailable"] },
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
  { method: "post", path: "/sessions/{id}/prompt", summary: "Send a prompt", body: P.PromptBody, response: P.Session, status: 202, errors: ["session_busy", "session_not_resumable"] },
  { method: "post", path: "/sessions/{id}/cancel", summary: "Cancel the running turn", response: P.Session, status: 202 },
  { method: "post", path: "/sessions/{id}/resume", summary: "Resume (relaunch) the session's agent", response: P.Session, status: 202, errors: ["session_busy", "session_not_resumable"] },
  { method: "delete", path: "/sessions/{id}", summary: "Delete a session (never the workspace, SES-7)", status: 204, errors: ["session_running"] },
  { method: "get", path: "/sessions/{id}/permissions", summary: "Pending permission requests (policy ask)" },
  { method: "post", path: "/sessions/{id}/permissions/{requestId}", summary: "Answer a permission request", status: 204 },
  { method: "get", path: "/agents", summary: "Agent profiles with availability, version and auth methods (AG-3)", response: z.array(P.AgentProfile) },
  { method: "post", path: "/agents/{name}/install", summary: "Install the pinned bridge into GROVE_HOME/agents (AG-3, idempotent)", response: P.AgentProfile, errors: ["agent_unknown", "agent_unavailable", "invalid_request"] },
  { method: "post", path: "/agents/{name}/check", summary: "Start the agent for initialize only; caches version and auth methods (AG-3)", response: P.AgentProfile, errors: ["agent_unknown", "agent_unavailable", "agent_start_failed"] },
  { method: "post", path: "/sessions/{id}/mode", summary: "Switch the agent's mode (AG-2, session/set_mode)", body: P.SetModeBody, response: P.Session, errors: ["not_found", "invalid_request", "agent_option_unsupported"] },
  { method: "post", path: "/sessions/{id}/model", summary: "Switch the agent's model (AG-2, session/set_config_option)", body: P.SetModelBody, response: P.Session, errors: ["not_found", "invalid_request", "agent_option_unsupported"] },
  { method: "get", path: "/openapi.json", summary: "This document" },
  { method: "get", path: "/events", summary: "WebSocket event stream (frames {type,data,at})" },
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
