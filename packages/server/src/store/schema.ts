import type { ColumnType, Generated, Kysely } from "kysely";

/**
 * Kysely table types: the database as it is stored (snake_case). Rows are mapped to the
 * camelCase records of `domain/records.ts` by the per-aggregate repository files.
 *
 * Dialect differences are confined to three column kinds:
 * - timestamps are ISO-8601 text on both dialects (sortable, no driver date conversion);
 * - booleans are `boolean` on PostgreSQL and integer 0/1 on SQLite (see `toDbBool`);
 * - JSON values (copy files, last errors, message data) are text on both.
 */
export type DbBool = ColumnType<boolean | number, boolean | number, boolean | number>;

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

/** USE-1 (migration 025): the usage ledger, one row per recorded change. */
export interface UsageRecordsTable {
  id: string;
  session_id: string;
  task_id: string;
  repository_id: string | null;
  agent: string;
  runner_id: string;
  at: string;
  day: string;
  tokens_in: ColumnType<number | string, number, number>;
  tokens_out: ColumnType<number | string, number, number>;
  cache_read: ColumnType<number | string, number, number>;
  cache_write: ColumnType<number | string, number, number>;
  cost: number;
  currency: string;
  estimated: number;
}

/** USE-2 (migration 025): per UTC day totals (the global daily cap). */
export interface UsageDaysTable {
  day: string;
  tokens: ColumnType<number | string, number, number>;
  cost: number;
}

/** USE-2 (migration 024): the daily cap a person set (`key = 'daily'`), shared by every runner. */
export interface UsageSettingsTable {
  key: string;
  budget_cost: number | null;
  budget_tokens: ColumnType<number | string | null, number | null, number | null>;
  set_at: string;
}

/** WEB-44 (migration 031): a person's settings by key (`editor`). */
export interface PersonSettingsTable {
  key: string;
  value: string;
  set_at: string;
}

/** WEB-44 (migration 031): a person's choices for an agent profile; null = the profile's own. */
export interface AgentSettingsTable {
  name: string;
  permission_policy: string | null;
  sandbox: string | null;
  set_at: string;
}

/** LIVE-4 (migration 017): the durable attention inbox. */
export interface InboxItemsTable {
  id: string;
  kind: string;
  task_id: string;
  session_id: string | null;
  cause_key: string;
  title: string;
  detail: string | null;
  state: string;
  read_at: string | null;
  created_at: string;
  resolved_at: string | null;
}

/** MCP-2 (migration 019): an agent's latest `report_progress` per task; `plan` is JSON. */
export interface TaskProgressTable {
  task_id: string;
  session_id: string;
  status: string;
  plan: string | null;
  updated_at: string;
}

/** MCP-3 (migration 020): an agent's `ask_user` questions; `choices` is JSON. */
export interface QuestionsTable {
  id: string;
  task_id: string;
  session_id: string;
  inbox_item_id: string;
  text: string;
  choices: string | null;
  state: string;
  answer: string | null;
  created_at: string;
  deadline_at: string;
  answered_at: string | null;
}

/** WF-1 (migration 026): the current version of each workflow; `definition` is JSON. */
export interface WorkflowsTable {
  name: string;
  repository_id: string | null;
  version: number;
  source: string;
  definition: string;
  stopped: number;
  created_at: string;
  updated_at: string;
}

/** WF-2 (migration 026): a task entering a step. */
export interface WorkflowEntriesTable {
  id: string;
  task_id: string;
  seq: number;
  step: string;
  workflow: string;
  version: number;
  created_at: string;
}

/** WF-2 (migration 026): one automated action, a durable job keyed by `idem_key`; `action` is JSON. */
export interface WorkflowRunsTable {
  id: string;
  idem_key: string;
  task_id: string;
  entry_id: string | null;
  workflow: string;
  version: number;
  step: string;
  action_index: number;
  action: string;
  cause: string;
  state: string;
  runner_id: string | null;
  attempts: number;
  outcome: string | null;
  session_id: string | null;
  /** WF-2.13 (migration 030): a `run` command's result, JSON. */
  result: string | null;
  created_at: string;
  updated_at: string;
}

/** WF-2 (migration 026): the per-task stop switch. */
export interface WorkflowTaskStopsTable {
  task_id: string;
  stopped: number;
  updated_at: string;
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

/** (migration 005): a review comment anchored to a line (docs/specs/review.md). */
export interface ReviewCommentsTable {
  id: string;
  task_id: string;
  repository_id: string;
  path: string;
  line: number;
  side: string;
  body: string;
  state: string;
  commit_sha: string;
  line_text: string;
  session_id: string | null;
  sent_turn: number | null;
  created_at: string;
  updated_at: string;
}

/** (migration 005): the pull request of a task's branch in one repository. */
export interface PullRequestsTable {
  task_id: string;
  repository_id: string;
  provider: string;
  number: number;
  url: string;
  state: string;
  draft: DbBool;
  checks: string;
  review_decision: string | null;
  head_commit: string;
  branch: string;
  pushed_commit: string;
  etags: string | null;
  checked_at: string | null;
  created_at: string;
  updated_at: string;
}

/** (migration 006): totals of a task's last computed Changes, read by the board's summaries. */
export interface TaskDiffStatsTable {
  task_id: string;
  files: number;
  additions: number;
  deletions: number;
  updated_at: string;
}

/** (migration 012): one row per runner, refreshed by its heartbeat. */
export interface RunnersTable {
  id: string;
  host: string;
  url: string;
  /** JSON array of strings. */
  labels: string;
  max_agents: number | null;
  live_agents: number;
  version: string;
  heartbeat_ms: number;
  started_at: string;
  last_seen_at: string;
  stopped_at: string | null;
  /** Migration 014: credentialKeyId of the runner's credential key; null before that migration. */
  credential_key_id: string | null;
}

/** Placement (migration 013): labels a task requires, JSON array. */
export interface TaskRunnerLabelsTable {
  task_id: string;
  labels: string;
}

/** Placement (migration 013): the runner that registered a repository. */
export interface RepositoryRunnersTable {
  repository_id: string;
  runner_id: string;
}

export interface MigrationsTable {
  name: string;
  applied_at: string;
}

export interface DB {
  repositories: RepositoriesTable;
  tasks: TasksTable;
  task_repositories: TaskRepositoriesTable;
  task_environments: TaskEnvironmentsTable;
  task_environment_repos: TaskEnvironmentReposTable;
  sessions: SessionsTable;
  messages: MessagesTable;
  inbox_items: InboxItemsTable;
  task_progress: TaskProgressTable;
  questions: QuestionsTable;
  usage_records: UsageRecordsTable;
  usage_days: UsageDaysTable;
  usage_settings: UsageSettingsTable;
  person_settings: PersonSettingsTable;
  agent_settings: AgentSettingsTable;
  agent_processes: AgentProcessesTable;
  cleanup_jobs: CleanupJobsTable;
  grove_migrations: MigrationsTable;
  repository_credentials: RepositoryCredentialsTable;
  review_comments: ReviewCommentsTable;
  pull_requests: PullRequestsTable;
  task_diff_stats: TaskDiffStatsTable;
  runners: RunnersTable;
  task_runner_labels: TaskRunnerLabelsTable;
  repository_runners: RepositoryRunnersTable;
  workflows: WorkflowsTable;
  workflow_entries: WorkflowEntriesTable;
  workflow_runs: WorkflowRunsTable;
  workflow_task_stops: WorkflowTaskStopsTable;
}

export type StoreDialect = "sqlite" | "postgres";

/** A connection or transaction over the Grove schema (Transaction<DB> is a Kysely<DB>). */
export type Db = Kysely<DB>;

/** What every repository function needs: where to run, and which dialect it talks to. */
export interface Ctx {
  db: Db;
  dialect: StoreDialect;
}

/** Booleans as the dialect stores them: PostgreSQL `boolean`, SQLite integer 0/1. */
export function toDbBool(dialect: StoreDialect, v: boolean): boolean | number {
  return dialect === "sqlite" ? (v ? 1 : 0) : v;
}

export function fromDbBool(v: boolean | number): boolean {
  return v === true || v === 1;
}
