import type { ColumnType, Generated } from "kysely";
import type { DbBool } from "./schema-columns.js";

/** Kysely table types (schema.ts): Repositories, tasks, their environments and sessions, the agents' processes and cleanup jobs. */

export interface RepositoriesTable {
  id: string;
  name: string;
  path: string;
  url: string | null;
  provider: string;
  default_branch: string;
  pull_before_worktree: DbBool;
  credential_policy: string;
  has_credential: DbBool;
  branch_template: string;
  /** JSON array of strings. */
  copy_files: string;
  sparse_checkout: string;
  setup_script: string | null;
  /** (migration 005): the provider's REST API base; null = the public API. */
  api_url: string | null;
  created_at: string;
  updated_at: string;
}

export interface TasksTable {
  id: string;
  title: string;
  description: string;
  state: string;
  dir_name: string;
  archived_at: string | null;
  /** LIVE-5 (migration 018): in the trash since; null for a live task. */
  deleted_at: string | null;
  created_at: string;
  updated_at: string;
  /** USE-1/USE-2 (migration 025): the task's usage totals and its budget. */
  usage_tokens_in: ColumnType<number | string, number | undefined, number>;
  usage_tokens_out: ColumnType<number | string, number | undefined, number>;
  usage_cost: ColumnType<number, number | undefined, number>;
  budget_cost: ColumnType<number | null, number | null | undefined, number | null>;
  budget_tokens: ColumnType<number | string | null, number | null | undefined, number | null>;
  budget_continue: ColumnType<number, number | undefined, number>;
  budget_set_at: ColumnType<string | null, string | null | undefined, string | null>;
  /** MCP-3 (migration 021): the parent task of a subtask; null otherwise. */
  parent_id: string | null;
}

export interface TaskRepositoriesTable {
  task_id: string;
  position: number;
  repository_id: string;
  base_branch: string;
  checkout_branch: string | null;
  pr_number: number | null;
}

export interface TaskEnvironmentsTable {
  id: string;
  task_id: string;
  status: string;
  workspace_path: string | null;
  runner_id: string;
  materializer_session_id: string | null;
  created_at: string;
  updated_at: string;
}

export interface TaskEnvironmentReposTable {
  id: string;
  environment_id: string;
  repository_id: string;
  branch_slug: string;
  worktree_id: string | null;
  worktree_path: string | null;
  worktree_branch: string | null;
  base_branch: string;
  position: number;
  status: string;
  error_message: string | null;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}

export interface SessionsTable {
  id: string;
  task_id: string;
  agent: string;
  state: string;
  task_environment_id: string | null;
  acp_session_id: string | null;
  /** JSON `LastError` or null. */
  last_error: string | null;
  created_at: string;
  updated_at: string;
  /** AG-2 (migration 007): JSON `AgentState` or null. */
  agent_state: ColumnType<string | null, string | null | undefined, string | null>;
  /** LIVE-2 (migration 015): JSON `LastTurn` or null. */
  last_turn: ColumnType<string | null, string | null | undefined, string | null>;
  /** SBX-3 (migration 016): `confined` or `unconfined`. */
  sandbox: ColumnType<string, string | undefined, string>;
  /** SBX-2 (migration 016): connections the egress proxy refused. */
  blocked_connections: ColumnType<number | string, number | undefined, number>;
  /** USE-1 (migration 025): the session's usage totals (bigint reads as a string on PostgreSQL). */
  usage_tokens_in: ColumnType<number | string, number | undefined, number>;
  usage_tokens_out: ColumnType<number | string, number | undefined, number>;
  usage_cache_read: ColumnType<number | string, number | undefined, number>;
  usage_cache_write: ColumnType<number | string, number | undefined, number>;
  usage_context_used: ColumnType<number | string | null, number | null | undefined, number | null>;
  usage_context_window: ColumnType<number | string | null, number | null | undefined, number | null>;
  usage_cost: ColumnType<number, number | undefined, number>;
  usage_currency: ColumnType<string | null, string | null | undefined, string | null>;
  usage_estimated: ColumnType<number, number | undefined, number>;
  usage_reported_cost: ColumnType<number | null, number | null | undefined, number | null>;
  /** WEB-37 (migration 028): JSON `QueuedPrompt[]`, oldest first, or null. */
  queued_prompts: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface MessagesTable {
  /** Insertion order, assigned by the database; the only ordering key (ties impossible). */
  seq: Generated<number | string>;
  id: string;
  session_id: string;
  role: string;
  text: string;
  /** JSON text; SQL NULL means "no data" (`undefined`). */
  data: string | null;
  created_at: string;
}

export interface AgentProcessesTable {
  session_id: string;
  runner_id: string;
  pid: number;
  start_time: string;
  created_at: string;
}

/** LC-2 cleanup jobs (migration 002); `snapshot` is JSON text, `task_id` has no foreign key. */
export interface CleanupJobsTable {
  id: string;
  task_id: string;
  trigger: string;
  state: string;
  runner_id: string;
  attempts: number;
  max_attempts: number;
  last_error: string | null;
  discard_changes: DbBool;
  snapshot: string | null;
  next_run_at: string | null;
  created_at: string;
  updated_at: string;
}

/** RR-2: one sealed credential per repository (see credentials-repo.ts). */
export interface RepositoryCredentialsTable {
  repository_id: string;
  sealed: string;
  /** Migration 014: credentialKeyId of the key that sealed it; null before that migration. */
  key_id: string | null;
  created_at: string;
  updated_at: string;
}
