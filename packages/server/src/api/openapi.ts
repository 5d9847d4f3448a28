import { z } from "zod";
import * as P from "@grove/protocol";
import { FORWARDED_ROUTES } from "./forward.js";

/** One query parameter of an operation. */
export interface QueryParam {
  name: string;
  description: string;
  schema: Record<string, unknown>;
  required?: boolean;
}

/**
 * One operation of the HTTP API. `operationId` is required and stable: client generators name
 * their methods after it (camelCase, after the use case: `createTask`, `promptSession`). Path
 * parameters are declared from the `{name}` segments of `path`; every operation may answer
 * `401 unauthorized` (bearer token, optional on loopback) besides its listed `errors`.
 */
export interface Op {
  method: "get" | "post" | "put" | "patch" | "delete";
  path: string;
  operationId: string;
  summary: string;
  body?: z.ZodType;
  query?: QueryParam[];
  response?: z.ZodType;
  status?: number;
  errors?: P.ErrorCode[];
}

const bool = (description: string): QueryParam => ({ name: "", description, schema: { type: "string", enum: ["true", "false"] } });

/** Every operation of the HTTP API; a test checks this list equals the registered routes. */
const DECLARED: Op[] = [
  { method: "get", path: "/health", operationId: "getHealth", summary: "Liveness, version, database kind and runner id", response: P.Health },
  { method: "get", path: "/runners", operationId: "listRunners", summary: "The runners registered in the shared database, with live load and online/offline state", response: z.array(P.Runner) },
  { method: "get", path: "/inbox", operationId: "listInbox", summary: "The durable attention inbox, newest first (LIVE-4); live as inbox.updated frames", query: [{ name: "state", description: "open (default) or all", schema: { type: "string", enum: ["open", "all"] } }], response: z.array(P.InboxItem) },
  { method: "post", path: "/inbox/{id}/done", operationId: "markInboxItemDone", summary: "Mark an inbox item done (dismissed); done already answers it unchanged", response: P.InboxItem },
  { method: "get", path: "/usage", operationId: "getUsage", summary: "Usage summed per task (subtasks included), repository, agent profile, runner or UTC day over every runner (USE-1); paged by key", query: [
    { name: "groupBy", description: "task (default), repository, agent, runner or day", schema: { type: "string", enum: ["task", "repository", "agent", "runner", "day"] } },
    { name: "from", description: "first UTC day included (YYYY-MM-DD)", schema: { type: "string" } },
    { name: "to", description: "last UTC day included (YYYY-MM-DD)", schema: { type: "string" } },
    { name: "taskId", description: "only this task and its subtasks", schema: { type: "string" } },
    { name: "limit", description: "rows per page (1–500, default 100)", schema: { type: "integer" } },
    { name: "cursor", description: "nextCursor of the previous page", schema: { type: "string" } },
  ], response: P.UsageReport, errors: ["invalid_request", "not_found"] },
  { method: "get", path: "/usage/daily-budget", operationId: "getDailyBudget", summary: "The global daily cap in force (the person's, else GROVE_DAILY_BUDGET) and today's spend over every runner (USE-2)", response: P.DailyBudget },
  { method: "put", path: "/usage/daily-budget", operationId: "putDailyBudget", summary: "Set the global daily cap in cost and/or tokens, in force at once on every runner, no restart ({} turns it off; USE-2; the person only)", body: P.PutDailyBudgetBody, response: P.DailyBudget, errors: ["invalid_request", "person_required"] },
  { method: "delete", path: "/usage/daily-budget", operationId: "resetDailyBudget", summary: "Drop the person's daily cap: GROVE_DAILY_BUDGET applies again (USE-2; the person only)", response: P.DailyBudget, errors: ["person_required"] },
  { method: "put", path: "/tasks/{id}/budget", operationId: "putTaskBudget", summary: "Set a task's budget in cost and/or tokens (subtasks inherit it; {} removes it), or {continueOnce: true} to let exactly one more turn run past it (USE-2; the person only)", body: P.PutBudgetBody, response: P.Task, errors: ["invalid_request", "not_found", "person_required"] },
  { method: "post", path: "/inbox/{id}/answer", operationId: "answerInboxQuestion", summary: "Answer an agent's ask_user question (MCP-3): the waiting tool call returns it, or (its agent restarted meanwhile) the session gets it as its next prompt", body: P.AnswerQuestionBody, response: P.InboxItem },
  { method: "post", path: "/inbox/{id}/read", operationId: "markInboxItemRead", summary: "Mark an inbox item read (the first read is kept)", response: P.InboxItem },
  { method: "post", path: "/repositories", operationId: "addRepository", summary: "Register a repository", body: P.CreateRepositoryBody, response: P.Repository, status: 201, errors: ["invalid_request", "path_not_absolute", "path_not_found", "not_a_git_repository", "path_inside_grove_home", "path_is_worktree", "repository_exists", "refresh_auth_failed", "refresh_network_failed", "refresh_timeout"] },
  { method: "get", path: "/repositories", operationId: "listRepositories", summary: "List repositories", response: z.array(P.Repository) },
  { method: "get", path: "/repositories/{id}", operationId: "getRepository", summary: "One repository", response: P.Repository, errors: ["not_found"] },
  { method: "delete", path: "/repositories/{id}", operationId: "removeRepository", summary: "Unregister a repository no task refers to; removes Grove's own clone of a remote one, never a local checkout", status: 204, errors: ["not_found", "repository_in_use"] },
  { method: "patch", path: "/repositories/{id}", operationId: "updateRepositorySettings", summary: "Change checkout settings (WT-9): defaultBranch, branchTemplate, pullBeforeWorktree, copyFiles, setupScript, sparseCheckout (WT-11)", body: P.PatchRepositoryBody, response: P.Repository, errors: ["invalid_request", "not_found", "base_branch_not_found", "invalid_branch_name"] },
  { method: "post", path: "/tasks", operationId: "createTask", summary: "Create a task; runnerLabels: labels the runner of its environment must advertise (placement)", body: P.CreateTaskBody, response: P.Task, status: 201, errors: ["invalid_request", "base_branch_not_found", "invalid_branch_name"] },
  { method: "get", path: "/tasks", operationId: "listTasks", query: [{ ...bool("archived tasks instead of live ones (default false)"), name: "archived" }, { name: "state", description: "comma-separated task states", schema: { type: "string" } }, { name: "repositoryId", description: "only tasks with this repository", schema: { type: "string" } }, { name: "parentId", description: "only the subtasks of this task (MCP-3)", schema: { type: "string" } }, { name: "q", description: "text in title or description", schema: { type: "string" } }, { name: "view", description: "full (default) or summary (the board's compact shape)", schema: { type: "string", enum: ["full", "summary"] } }, { name: "order", description: "oldest (default) or newest first, by (createdAt, id)", schema: { type: "string", enum: ["oldest", "newest"] } }, { name: "limit", description: "page size: answers {items, nextCursor} instead of a plain array", schema: { type: "integer", minimum: 1 } }, { name: "cursor", description: "nextCursor of the previous page", schema: { type: "string" } }], summary: "List tasks (?archived=true|false&state=a,b&repositoryId=&parentId=&q=&view=full|summary&order=oldest|newest); with ?limit=N[&cursor=C] one keyset page {items, nextCursor}. Every item carries runnerId and runnerState (its environment's runner, computed at read time; null before an environment exists)", response: z.union([z.array(P.Task), z.array(P.TaskSummary), P.pageOf(z.union([P.Task, P.TaskSummary]))]), errors: ["invalid_request"] },
  { method: "get", path: "/tasks/counts", operationId: "countTasks", query: [{ ...bool("archived tasks instead of live ones (default false)"), name: "archived" }, { name: "repositoryId", description: "only tasks with this repository", schema: { type: "string" } }, { name: "q", description: "text in title or description", schema: { type: "string" } }], summary: "How many tasks each state holds under the same filters as GET /tasks (the board's exact column counts)", response: P.TaskCounts, errors: ["invalid_request"] },
  { method: "get", path: "/tasks/{id}", operationId: "getTask", summary: "One task, with runnerId, runnerState (null before an environment exists) and runnerLabels", response: P.Task, errors: ["not_found"] },
  { method: "patch", path: "/tasks/{id}", operationId: "updateTask", summary: "Edit a task or move it (e.g. to done)", body: P.PatchTaskBody, response: P.Task, errors: ["not_found"] },
  { method: "post", path: "/tasks/{id}/sessions", operationId: "startSession", summary: "Start a session: the first places (runnerId, else runnerLabels, repositories and free capacity) and materializes the environment, later ones attach on its runner", body: P.CreateSessionBody, response: P.Session, status: 201, errors: ["budget_exceeded", "workspace_preparing", "workspace_reuse_unsafe", "task_cleanup_in_progress", "task_archived", "agent_unknown", "agent_unavailable", "runner_offline", "no_runner_available", "runner_unknown"] },
  { method: "get", path: "/tasks/{id}/sessions", operationId: "listTaskSessions", query: [{ name: "limit", description: "page size: answers {items, nextCursor} instead of a plain array", schema: { type: "integer", minimum: 1 } }, { name: "cursor", description: "nextCursor of the previous page", schema: { type: "string" } }], summary: "Sessions of a task, oldest first; with ?limit=N[&cursor=C] one keyset page {items, nextCursor}", response: z.union([z.array(P.Session), P.pageOf(P.Session)]), errors: ["invalid_request", "not_found"] },
  { method: "get", path: "/tasks/{id}/environment", operationId: "getTaskEnvironment", summary: "The task environment", response: P.Environment, errors: ["not_found"] },
  { method: "post", path: "/tasks/{id}/environment/restore", operationId: "restoreTaskEnvironment", summary: "Recreate vanished worktrees in place (WT-5)", response: P.Environment, errors: ["workspace_reuse_unsafe", "branch_unrecoverable", "runner_offline"] },
  { method: "get", path: "/tasks/{id}/changes", operationId: "getTaskChanges", summary: "Changes of every worktree of the task", response: P.Changes },
  { method: "get", path: "/tasks/{id}/changes/diff", operationId: "getTaskFileDiff", summary: "One file's patch", query: [{ name: "repositoryId", description: "the repository holding the file", schema: { type: "string" }, required: true }, { name: "path", description: "the file's path inside the worktree", schema: { type: "string" }, required: true }, { name: "worktreeId", description: "a specific worktree of the repository (several attachments)", schema: { type: "string" } }, { name: "scope", description: "RV-7: all (merge-base to working tree, default), committed (merge-base to HEAD) or uncommitted (HEAD to working tree)", schema: { type: "string", enum: ["all", "committed", "uncommitted"] } }], response: P.FileDiff, errors: ["path_outside_worktree", "not_found"] },
  { method: "post", path: "/tasks/{id}/archive", operationId: "archiveTask", summary: "Archive: stop agents, save uncommitted work, remove worktrees (durable job, LC-2); a task with open subtasks needs children: archive|keep (MCP-3)", body: P.ArchiveTaskBody, response: P.CleanupAccepted, status: 202, errors: ["not_found", "task_archived", "task_cleanup_in_progress", "runner_offline", "task_has_children"] },
  { method: "post", path: "/tasks/{id}/unarchive", operationId: "unarchiveTask", summary: "Unarchive; cancels a pending archive job (LC-5)", response: P.Task, errors: ["not_found", "task_cleanup_in_progress"] },
  { method: "get", path: "/trash", operationId: "listTrash", summary: "LIVE-5: deleted tasks, most recently deleted first, each with purgeAt (GROVE_TRASH_RETENTION_MS after deletion)", response: z.array(P.TrashedTask), errors: [] },
  { method: "post", path: "/tasks/{id}/restore-deleted", operationId: "restoreDeletedTask", summary: "LIVE-5: take a task out of the trash with its sessions, transcripts, branches and saved work (a not-yet-running delete or purge job is cancelled)", response: P.Task, errors: ["not_found", "task_not_in_trash", "task_cleanup_in_progress"] },
  { method: "delete", path: "/tasks/{id}", operationId: "deleteTask", summary: "Delete a task and its worktrees (LC-6)", query: [{ ...bool("consent to lose uncommitted work (LC-6)"), name: "discardChanges" }], response: P.CleanupAccepted, status: 202, errors: ["not_found", "dirty_worktree", "task_cleanup_in_progress", "runner_offline"] },
  { method: "post", path: "/tasks/{id}/environment/reset", operationId: "resetTaskEnvironment", summary: "Remove the environment's worktrees, keep branches (LC-2)", response: P.CleanupAccepted, status: 202, errors: ["not_found", "session_running", "task_archived", "task_cleanup_in_progress", "runner_offline"] },
  { method: "get", path: "/cleanup-jobs", operationId: "listCleanupJobs", query: [{ name: "taskId", description: "only this task's jobs", schema: { type: "string" } }, { name: "limit", description: "page size: answers {items, nextCursor} instead of a plain array", schema: { type: "integer", minimum: 1 } }, { name: "cursor", description: "nextCursor of the previous page", schema: { type: "string" } }], summary: "Cleanup jobs (?taskId=), oldest first; with ?limit=N[&cursor=C] one keyset page {items, nextCursor}", response: z.union([z.array(P.CleanupJob), P.pageOf(P.CleanupJob)]), errors: ["invalid_request"] },
  { method: "get", path: "/doctor", operationId: "auditWorktrees", summary: "Read-only audit: environment rows vs git worktrees vs task directories", response: P.DoctorReport },
  { method: "get", path: "/sessions/{id}", operationId: "getSession", summary: "One session", response: P.Session },
  { method: "get", path: "/sessions/{id}/messages", operationId: "listSessionMessages", query: [{ name: "limit", description: "page size: answers {items, nextCursor} instead of a plain array", schema: { type: "integer", minimum: 1 } }, { name: "before", description: "nextCursor of the previous (newer) page", schema: { type: "string" } }], summary: "Messages, oldest first; with ?limit=N[&before=C] the newest page before the cursor (oldest first within it) and nextCursor towards older ones", response: z.union([z.array(P.Message), P.pageOf(P.Message)]), errors: ["invalid_request", "not_found"] },
  { method: "get", path: "/sessions/{id}/workspace", operationId: "getSessionWorkspace", summary: "The session's projected workspace (ENV-5)", response: P.WorkspaceInfo, errors: ["workspace_missing"] },
  { method: "post", path: "/sessions/{id}/prompt", operationId: "promptSession", summary: "Send a prompt: text, review comments composed into one prompt (marked sent), or both; with queue: true a prompt waits behind a running turn (WEB-37)", body: P.PromptBody, response: P.Session, status: 202, errors: ["budget_exceeded", "session_busy", "session_not_resumable", "comment_resolved", "invalid_request", "runner_offline", "no_runner_available"] },
  { method: "delete", path: "/sessions/{id}/queued/{queuedId}", operationId: "dropQueuedPrompt", summary: "WEB-37: take a queued follow-up back before its turn", response: P.Session, errors: ["not_found"] },
  { method: "post", path: "/sessions/{id}/cancel", operationId: "cancelSessionTurn", summary: "Cancel the running turn", response: P.Session, status: 202 },
  { method: "post", path: "/sessions/{id}/resume", operationId: "resumeSession", summary: "Resume (relaunch) the session's agent", response: P.Session, status: 202, errors: ["session_running", "session_not_resumable", "runner_offline", "no_runner_available"] },
  { method: "post", path: "/sessions/{id}/restart", operationId: "restartSession", summary: "Restart the session's agent: stop it (its whole process group) and resume with session/load in the same worktree (LIVE-3, a stalled turn)", response: P.Session, status: 202, errors: ["session_busy", "session_not_resumable", "runner_offline", "no_runner_available"] },
  { method: "delete", path: "/sessions/{id}", operationId: "deleteSession", summary: "Delete a session (never the workspace, SES-7)", status: 204, errors: ["session_running"] },
  { method: "get", path: "/sessions/{id}/permissions", operationId: "listPermissionRequests", summary: "Pending permission requests (policy ask)" },
  { method: "post", path: "/sessions/{id}/permissions/{requestId}", operationId: "answerPermissionRequest", summary: "Answer a permission request", status: 204 },
  { method: "post", path: "/tasks/{id}/comments", operationId: "addReviewComment", summary: "Add a review comment anchored to a line (side new|old)", body: P.CreateCommentBody, response: P.Comment, status: 201, errors: ["invalid_request", "comment_anchor_invalid", "path_outside_worktree", "workspace_missing", "not_found"] },
  { method: "get", path: "/tasks/{id}/comments", operationId: "listReviewComments", summary: "Review comments of a task, with outdated computed", response: z.array(P.Comment), errors: ["not_found"] },
  { method: "patch", path: "/comments/{id}", operationId: "updateReviewComment", summary: "Edit, resolve or reopen a review comment", body: P.PatchCommentBody, response: P.Comment, errors: ["invalid_request", "not_found"] },
  { method: "delete", path: "/comments/{id}", operationId: "deleteReviewComment", summary: "Delete a review comment", status: 204, errors: ["not_found"] },
  { method: "post", path: "/tasks/{id}/commit", operationId: "commitTaskChanges", summary: "Commit the worktrees' uncommitted changes (all or listed paths) as the person; hooks run unless noVerify", body: P.CommitBody, response: P.CommitResult, status: 201, errors: ["invalid_request", "nothing_to_commit", "commit_rejected", "path_outside_worktree", "workspace_missing", "task_archived"] },
  { method: "post", path: "/tasks/{id}/update-from-base", operationId: "updateTaskFromBase", summary: "Refresh the base through the repository's route (RR-4), back up the branch (refs/grove/backup/<task>/<n>), then rebase (default) or merge onto it", body: P.UpdateFromBaseBody, response: P.UpdateResult, errors: ["merge_conflict", "dirty_worktree", "update_in_progress", "workspace_missing", "task_archived", "refresh_auth_failed", "refresh_network_failed", "refresh_timeout", "refresh_missing_ref", "refresh_base_diverged"] },
  { method: "post", path: "/tasks/{id}/update-from-base/continue", operationId: "continueTaskUpdate", summary: "Finish an update whose conflicts were kept, once they are resolved in the files", body: P.UpdateStepBody, response: P.UpdateResult, errors: ["update_not_in_progress", "conflicts_unresolved"] },
  { method: "post", path: "/tasks/{id}/update-from-base/abort", operationId: "abortTaskUpdate", summary: "Undo an update whose conflicts were kept: branch, index and files as before", body: P.UpdateStepBody, response: P.UpdateResult, errors: ["update_not_in_progress"] },
  { method: "get", path: "/tasks/{id}/conflicts", operationId: "getTaskConflicts", summary: "RV-8: per repository with a stopped update, the conflicted files and the regions that still hold markers", query: [{ name: "repositoryId", description: "one repository of the task", schema: { type: "string" } }], response: P.TaskConflicts, errors: ["workspace_missing", "not_found"] },
  { method: "post", path: "/tasks/{id}/conflicts/send", operationId: "sendTaskConflicts", summary: "RV-8: send the unresolved conflict hunks (and optional words) to a session of the task as one prompt", body: P.SendConflictsBody, response: P.Session, status: 202, errors: ["update_not_in_progress", "session_busy", "session_not_resumable", "not_found"] },
  { method: "get", path: "/tasks/{id}/terminal", operationId: "openTaskTerminal", summary: "WebSocket: a shell in the task's worktree (?repositoryId=&cols=&rows=); frames in {type:'input',data}|{type:'resize',cols,rows}, out: output text", errors: ["terminal_unavailable", "not_found"] },
  { method: "post", path: "/tasks/{id}/open-in-editor", operationId: "openTaskInEditor", summary: "Open a worktree in the server's GROVE_EDITOR ({repositoryId})", status: 202, errors: ["editor_not_configured", "terminal_unavailable"] },
  { method: "post", path: "/agents/{name}/install", operationId: "installAgent", summary: "Install the pinned bridge into GROVE_HOME/agents (AG-3, idempotent)", response: P.AgentProfile, errors: ["agent_unknown", "agent_unavailable", "invalid_request"] },
  { method: "post", path: "/agents/{name}/check", operationId: "checkAgent", summary: "Start the agent for initialize only, confined as a session would be; caches version and auth methods (AG-3, SBX-1)", response: P.AgentProfile, errors: ["agent_unknown", "agent_unavailable", "agent_start_failed", "sandbox_unavailable"] },
  { method: "post", path: "/sessions/{id}/mode", operationId: "setSessionMode", summary: "Switch the agent's mode (AG-2, session/set_mode)", body: P.SetModeBody, response: P.Session, errors: ["not_found", "invalid_request", "agent_option_unsupported"] },
  { method: "post", path: "/sessions/{id}/model", operationId: "setSessionModel", summary: "Switch the agent's model (AG-2, session/set_config_option)", body: P.SetModelBody, response: P.Session, errors: ["not_found", "invalid_request", "agent_option_unsupported"] },
  { method: "post", path: "/tasks/{id}/merge", operationId: "mergeTaskIntoBase", summary: "Merge the task branch into its base (local repositories): merge | squash | fast_forward computed with git merge-tree, base ref moved by compare-and-set", body: P.MergeBody, response: P.MergeResult, errors: ["merge_conflict", "base_checkout_dirty", "base_moved", "merge_not_fast_forward", "invalid_request", "workspace_missing", "task_archived"] },
  { method: "post", path: "/tasks/{id}/pull-requests", operationId: "createPullRequests", summary: "Push the task branch through the route's credential (never forced) and open a pull request through the provider's REST API; task → review", body: P.CreatePullRequestBody, response: z.array(P.PullRequest), status: 201, errors: ["pull_request_unsupported", "push_rejected", "refresh_auth_failed", "refresh_network_failed", "refresh_timeout", "provider_auth_failed", "provider_not_found", "provider_rejected", "provider_rate_limited", "provider_failed"] },
  { method: "get", path: "/tasks/{id}/pull-requests", operationId: "listPullRequests", summary: "The task's pull requests as last refreshed", response: z.array(P.PullRequest), errors: ["not_found"] },
  { method: "post", path: "/tasks/{id}/pull-requests/refresh", operationId: "refreshPullRequests", summary: "Refresh pull-request status now (ETags; state, checks, review decision); a merge moves the task to done", response: z.array(P.PullRequest), errors: ["provider_auth_failed", "provider_not_found", "provider_rejected", "provider_rate_limited", "provider_failed"] },
  { method: "post", path: "/tasks/{id}/pull-requests/feedback", operationId: "sendPullRequestFeedback", summary: "Send failed checks and unresolved review comments to a session as one prompt", body: P.FeedbackBody, response: P.Session, status: 202, errors: ["session_busy", "session_not_resumable", "provider_auth_failed", "provider_not_found", "provider_rejected", "provider_rate_limited", "provider_failed"] },
  { method: "get", path: "/agents", operationId: "listAgentProfiles", summary: "Agent profiles with availability, version and auth methods (AG-3)", response: z.array(P.AgentProfile) },
  { method: "get", path: "/workflows", operationId: "listWorkflows", summary: "WF-1: the workflows, the built-in default (the plain board) first", response: z.array(P.Workflow) },
  { method: "get", path: "/workflows/{name}", operationId: "getWorkflow", summary: "WF-1: one workflow with its YAML source", response: P.Workflow, errors: ["not_found"] },
  { method: "put", path: "/workflows/{name}", operationId: "putWorkflow", summary: "WF-1: store a new version of a workflow: its YAML as a JSON string or {source}, or its definition as a JSON object; ifVersion makes it a compare-and-set", query: [{ name: "ifVersion", description: "the stored version this write replaces (0: must not exist yet)", schema: { type: "integer", minimum: 0 } }], body: z.union([z.string(), z.object({ source: z.string() }), z.record(z.string(), z.unknown())]), response: P.Workflow, errors: ["invalid_workflow", "invalid_request", "workflow_builtin", "workflow_version_conflict"] },
  { method: "delete", path: "/workflows/{name}", operationId: "deleteWorkflow", summary: "WF-1: delete a workflow (its runs stay in the tasks' history)", status: 204, errors: ["not_found", "workflow_builtin"] },
  { method: "patch", path: "/workflows/{name}", operationId: "setWorkflowStopped", summary: "WF-2: the per-workflow stop switch ({stopped}); stopping cancels its pending runs", body: P.WorkflowStopBody, response: P.Workflow, errors: ["not_found", "workflow_builtin", "invalid_request"] },
  { method: "get", path: "/tasks/{id}/workflow-runs", operationId: "listWorkflowRuns", summary: "WF-2: every automated action of the task's workflow: what ran, why, its outcome (live as workflow.run frames)", response: z.array(P.WorkflowRun), errors: ["not_found"] },
  { method: "put", path: "/tasks/{id}/workflow", operationId: "setTaskWorkflowStopped", summary: "WF-2: the per-task stop switch ({stopped}); stopping cancels the task's runs in progress", body: P.WorkflowStopBody, response: z.object({ taskId: z.string(), stopped: z.boolean() }), errors: ["not_found", "invalid_request"] },
  { method: "get", path: "/openapi.json", operationId: "getOpenApiDocument", summary: "This document" },
  { method: "get", path: "/events", operationId: "subscribeEvents", summary: "WebSocket event stream (frames {type,data,at})" },
];

/**
 * Operations the forwarding seam (forward.ts) sends to the task's runner can also
 * answer `runner_offline` (that runner is gone), `runner_unreachable` (it did not answer) and
 * `cluster_secret_missing` (this runner has no GROVE_CLUSTER_SECRET to forward with).
 */
const FORWARD_ERRORS: P.ErrorCode[] = ["runner_offline", "runner_unreachable", "cluster_secret_missing"];
const forwarded = new Set(FORWARDED_ROUTES.map((r) => r.replace(/:([A-Za-z]+)/g, "{$1}").toLowerCase()));

export const OPERATIONS: Op[] = DECLARED.map((op) => {
  if (!forwarded.has(`${op.method} ${op.path}`.toLowerCase())) return op;
  const errors = [...(op.errors ?? [])];
  for (const e of FORWARD_ERRORS) if (!errors.includes(e)) errors.push(e);
  return { ...op, errors };
});
