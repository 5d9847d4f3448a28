/**
 * The one catalog of API error codes. Every `AppError` the server raises names a code from
 * here; the HTTP status comes from this table, never from the throw site. Documented in
 * docs/specs/api-errors.md (a test checks the two agree).
 */
export const ERROR_CATALOG = {
  invalid_request: { status: 400, description: "The request body, query or path failed validation; details name the field." },
  invalid_json: { status: 400, description: "The request body is not valid JSON." },
  path_not_absolute: { status: 400, description: "A repository path must be absolute." },
  path_not_found: { status: 400, description: "The repository path does not exist." },
  not_a_git_repository: { status: 400, description: "The path exists but is not the top level of a git repository." },
  invalid_branch_name: { status: 400, description: "A branch or ref name fails git's ref-name rules or looks like an option." },
  base_branch_not_found: { status: 400, description: "The base branch does not exist in the repository." },
  path_outside_worktree: { status: 400, description: "A requested path escapes the worktree (SEC-2)." },
  payload_too_large: { status: 413, description: "The request body exceeds the server's limit." },
  unauthorized: {
    status: 401,
    description:
      "Missing or wrong bearer token (GROVE_AUTH_TOKEN), or a runner-to-runner request that is not correctly signed with GROVE_CLUSTER_SECRET (signature, target, time, nonce, route or sender, SBX-5).",
  },
  host_not_allowed: {
    status: 403,
    description: "The Host header names neither this server's listen address, a loopback name, nor GROVE_ALLOWED_HOSTS (SEC-5, DNS rebinding).",
  },
  origin_not_allowed: { status: 403, description: "A browser request from another origin than the server's own or GROVE_ALLOWED_ORIGINS (SEC-5)." },
  person_required: {
    status: 403,
    description:
      "Only the person answers permission requests and changes an agent's mode or model: the request carried neither the CLI's person token (bearer) nor the page's cookie on a same-origin request (SBX-5).",
  },
  unsupported_media_type: { status: 415, description: "A POST, PATCH, PUT or DELETE without Content-Type: application/json, body or not (SEC-5)." },
  too_many_clients: { status: 503, description: "GROVE_MAX_WS_CLIENTS WebSocket clients are already connected (SEC-8)." },
  path_inside_grove_home: { status: 400, description: "A repository path lies inside GROVE_HOME (SEC-3)." },
  path_is_worktree: { status: 400, description: "A repository path lies inside a worktree or checkout of a registered repository (SEC-3)." },
  not_found: { status: 404, description: "No such resource." },
  repository_exists: { status: 409, description: "A repository with that path or name is already registered." },
  repository_in_use: { status: 409, description: "A task (archived ones included) still refers to the repository; details.taskIds name them." },
  workspace_preparing: { status: 409, description: "The task's environment is being materialized by another session (SES-2)." },
  workspace_reuse_unsafe: {
    status: 409,
    description: "An existing worktree failed validation; details.reason says why and details.action what fixes it (SES-3, WT-5).",
  },
  task_cleanup_in_progress: { status: 409, description: "A cleanup job of the task is active (LC-2)." },
  task_not_in_trash: { status: 409, description: "The task is not in the trash (it was never deleted, or it was restored already)." },
  task_archived: { status: 409, description: "The task is archived; unarchive it first." },
  budget_exceeded: {
    status: 409,
    description:
      "USE-2: the task (or a parent task) reached its budget, the workflow that started the session reached its budget, the session's agent profile reached its daily cap, or the day reached the global daily cap: no new prompt runs until a person raises the budget (PUT /tasks/:id/budget, the workflow's `budget`, PUT /agents/:name/budget, PUT /usage/daily-budget) or lets one more turn run (`{continueOnce: true}`); details name the scope (task, workflow, agent, daily), limit and use.",
  },
  session_busy: { status: 409, description: "A prompt arrived while a turn is already running in this session: wait for the turn to end." },
  session_running: { status: 409, description: "Resume, delete or environment reset is refused while a session is starting or running: cancel it first." },
  session_not_resumable: { status: 409, description: "The session is in a state that cannot be resumed or prompted." },
  dirty_worktree: { status: 409, description: "The worktree has uncommitted or untracked changes; pass discardChanges (LC-6)." },
  branch_exists: { status: 409, description: "The branch a new task would create already exists (WT-2)." },
  branch_unrecoverable: { status: 409, description: "A worktree and its branch are both gone; nothing is invented (WT-5)." },
  comment_anchor_invalid: {
    status: 400,
    description: "A review comment's anchor names no line of the file on that side (unknown path, line past the end, or a repository the task does not have).",
  },
  comment_resolved: { status: 409, description: "A resolved review comment cannot be sent to a session; reopen it first." },
  nothing_to_commit: { status: 409, description: "The worktree has no uncommitted changes (or none among the listed paths) to commit." },
  commit_rejected: { status: 409, description: "git refused the commit (a hook failed, or an identity is missing); details.output holds git's message." },
  git_identity_missing: {
    status: 409,
    description:
      "No git identity for a commit Grove makes for the person (commit, update from base, merge): neither git's user.name/user.email nor GROVE_GIT_AUTHOR_NAME/GROVE_GIT_AUTHOR_EMAIL is set; details.fix names the command. Nothing was staged.",
  },
  merge_conflict: {
    status: 409,
    description: "Update from base or merge stopped on conflicts; details.conflicts lists the paths. Nothing moved unless keepConflicts was asked.",
  },
  update_in_progress: { status: 409, description: "A rebase or merge of update-from-base is stopped in the worktree; continue or abort it first." },
  update_not_in_progress: { status: 409, description: "continue/abort was asked but no rebase or merge is stopped in the worktree." },
  conflicts_unresolved: { status: 409, description: "continue was asked while files still hold conflict markers; details.conflicts lists them." },
  uncommitted_changes: {
    status: 409,
    description: "The task's worktree has uncommitted changes a merge would leave out; commit them, or pass leaveUncommitted.",
  },
  base_checkout_dirty: { status: 409, description: "The base branch is checked out in a checkout with uncommitted changes; nothing moved." },
  base_moved: {
    status: 409,
    description: "The base branch moved between computing the merge and moving it (compare-and-set refused); nothing was lost, retry.",
  },
  merge_not_fast_forward: { status: 409, description: "fast_forward was asked but the base branch has commits the task branch lacks; update from base first." },
  pull_request_unsupported: {
    status: 400,
    description: "The repository has no provider pull-request API (a local checkout, or a provider plugin without one).",
  },
  push_rejected: { status: 409, description: "The host refused the push (the branch moved on the host since the last push); nothing was forced." },
  provider_auth_failed: { status: 502, description: "The provider's REST API refused the repository's credential (401/403); details name the repository." },
  provider_not_found: { status: 502, description: "The provider's REST API does not know the repository or pull request (404)." },
  provider_rejected: {
    status: 422,
    description: "The provider's REST API refused the request as invalid (422), e.g. a pull request for this branch already exists.",
  },
  provider_rate_limited: { status: 429, description: "The provider's REST API rate limit is spent; details.retryAt says when to try again." },
  provider_failed: { status: 502, description: "The provider's REST API could not be reached or answered with a server error." },
  workspace_missing: { status: 409, description: "The session's workspace inventory is missing or ambiguous (ENV-5)." },
  sandbox_unavailable: {
    status: 409,
    description:
      'The agent must run in the OS sandbox (SBX-1) and none works on this machine (bubblewrap missing or refused); details.fix names the fix: install bubblewrap, point GROVE_BWRAP at it, or set "sandbox": "off" in the agent\'s profile to run it unconfined (SBX-3).',
  },
  workspace_tampered: {
    status: 409,
    description:
      "A task worktree's .git no longer points at its recorded git dir; Grove runs nothing in it (no agent, commit, update or merge) until the person restores it (POST /tasks/:id/environment/restore) (SBX-4).",
  },
  refresh_failed: {
    status: 409,
    description: "A local checkout's refresh could not run (no origin configured, no fetched commit); details.reason says why (WT-3).",
  },
  agent_unknown: { status: 400, description: "No agent profile with that name." },
  agent_start_failed: { status: 500, description: "The agent process could not be started or did not speak ACP." },
  agent_crashed: { status: 500, description: "The agent process exited during a turn." },
  agent_processes_survived: {
    status: 409,
    description: "Processes of an agent's process group were still alive after SIGTERM and SIGKILL (SEC-7); nothing was removed; retry.",
  },
  agent_unavailable: {
    status: 409,
    description: "The agent's command is not found or its pinned package is not installed (AG-3); details.fix names the command that installs it.",
  },
  agent_auth_required: {
    status: 409,
    description: "The agent needs credentials it does not have (AG-3); details name its auth methods and the variable or command that fixes it.",
  },
  agent_option_unsupported: {
    status: 409,
    description: "The agent does not offer that mode or model, or no way to switch it (AG-2); details list what it offers.",
  },
  launch_interrupted: { status: 500, description: "The server stopped before the launch finished." },
  git_failed: { status: 500, description: "A git command failed." },
  git_timeout: { status: 504, description: "A git command exceeded its timeout." },
  refresh_auth_failed: { status: 502, description: "The git host refused the repository's credential (RR-7); details name the repository." },
  refresh_network_failed: { status: 502, description: "The git host could not be reached or answered with a server error (RR-7)." },
  refresh_timeout: { status: 504, description: "A clone or refresh of a remote repository exceeded its timeout (RR-7)." },
  refresh_missing_ref: { status: 502, description: "A branch or pull-request ref the refresh needs does not exist on the host (RR-6, RR-7)." },
  refresh_checkout_mismatch: {
    status: 409,
    description: "A managed clone is not at its scoped path or its origin is not the provider's URL (RR-4); nothing was fetched.",
  },
  refresh_base_diverged: { status: 409, description: "The local and fetched base branches have diverged; neither is moved (WT-3)." },
  credential_unreadable: {
    status: 500,
    description:
      "A stored credential cannot be decrypted with the key in GROVE_HOME (RR-2); on a refresh path details name task, session and repository (RR-7).",
  },
  terminal_unavailable: {
    status: 409,
    description: "The task has no usable worktree for a terminal or editor (archived, not created yet, or missing); details.reason says which.",
  },
  editor_not_configured: { status: 409, description: "No editor is configured (GROVE_EDITOR) or its command could not be started." },
  runner_offline: {
    status: 409,
    description: "The task's environment lives on another runner whose heartbeat is older than its bound; nothing was done. details.runnerId names it.",
  },
  no_runner_available: {
    status: 409,
    description:
      "No runner can take the launch: none online matches the task's runnerLabels and holds every repository (details.reason: no_match), the runner (or every fitting one) lacks the credential key that sealed a repository's stored credential (credential_key), every fitting runner is at GROVE_RUNNER_MAX_AGENTS (capacity), or the named runnerId is not the environment's runner (placed_elsewhere).",
  },
  runner_unknown: { status: 400, description: "The request names a runnerId that is not registered." },
  runner_unreachable: {
    status: 502,
    description:
      "The task's runner is online but did not answer a forwarded request (connection refused, reset or timed out); the request may or may not have run there: look before retrying. details.runnerId names it.",
  },
  cluster_secret_missing: {
    status: 503,
    description:
      "Forwarding to another runner needs GROVE_CLUSTER_SECRET on this runner (required once more than one runner is registered); nothing was forwarded.",
  },
  mcp_token_invalid: {
    status: 401,
    description:
      "An MCP call came with a capability token that is unknown, revoked (its session ended or its task was archived) or minted for another session (MCP-1); nothing was done.",
  },
  mcp_forbidden: {
    status: 403,
    description:
      "An MCP call named a task outside the calling session's own task and its subtasks, or asked for something no agent may do (MCP-2); nothing was done.",
  },
  mcp_rate_limited: {
    status: 429,
    description: "The session made more MCP calls than its per-session rate allows (MCP-2); details.retryAfterMs says when the next is accepted.",
  },
  question_timeout: {
    status: 408,
    description: "An ask_user question was not answered within its bound (MCP-3, default 30 minutes); the inbox item is closed as timed out.",
  },
  task_has_children: {
    status: 409,
    description:
      'The task has subtasks that are not archived (MCP-3.7, at any depth); details.children names them; send children: "archive" (archive them too) or "keep" (leave them as they are).',
  },
  subtask_limit: {
    status: 409,
    description:
      "A subtask_create would pass the parent's depth, count or running-agent limit (MCP-3); details.limit names which and its value; nothing was created.",
  },
  invalid_workflow: {
    status: 400,
    description:
      "WF-1: the workflow is not valid YAML or breaks a rule (unknown action, agent profile or step, a cycle of automatic moves without a guard); details.line names the line of the YAML, details.path the field.",
  },
  workflow_builtin: { status: 409, description: "WF-1: the built-in default workflow (the plain board) cannot be replaced or deleted." },
  workflow_version_conflict: {
    status: 409,
    description: "WF-1: ifVersion does not match the stored version of the workflow (someone changed it meanwhile); details.version is the stored one.",
  },
  wip_limit_reached: {
    status: 409,
    description: "WF-1: the step of the task's workflow already holds its WIP limit of tasks; details name the step, limit and count.",
  },
  workflow_guard: { status: 409, description: "WF-1: an automated move was refused by the target step's guard (e.g. done only with a merged pull request)." },
  internal_error: { status: 500, description: "An unexpected server error." },
} as const satisfies Record<string, { status: number; description: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOG;

export interface ErrorBody {
  error: { code: ErrorCode | string; message: string; details?: Record<string, unknown> };
}

export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERROR_CATALOG, code);
}
