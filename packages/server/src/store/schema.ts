import type { Kysely } from "kysely";
import type {
  AgentProcessesTable,
  CleanupJobsTable,
  MessagesTable,
  RepositoriesTable,
  RepositoryCredentialsTable,
  SessionsTable,
  TaskEnvironmentReposTable,
  TaskEnvironmentsTable,
  TaskRepositoriesTable,
  TasksTable,
} from "./schema-tasks.js";
import type { AgentBudgetsTable, UsageDaysTable, UsageRecordsTable, UsageSettingsTable } from "./schema-usage.js";
import type { InboxItemsTable, QuestionsTable, TaskProgressTable } from "./schema-inbox.js";
import type { WorkflowEntriesTable, WorkflowRunsTable, WorkflowTaskStopsTable, WorkflowsTable } from "./schema-workflows.js";
import type { PullRequestsTable, ReviewCommentsTable, TaskDiffStatsTable } from "./schema-review.js";
import type { RepositoryRunnersTable, RunnersTable, TaskRunnerLabelsTable } from "./schema-runners.js";
import type { StoreDialect } from "./schema-columns.js";
import type { AgentSettingsTable, PersonSettingsTable } from "./schema-settings.js";

/**
 * Kysely table types: the database as it is stored (snake_case), one file per concern
 * (`schema-*.ts`) and composed here into `DB`. Rows are mapped to the camelCase records of
 * `domain/records.ts` by the per-aggregate repository files.
 */
export * from "./schema-columns.js";
export type * from "./schema-tasks.js";
export type * from "./schema-usage.js";
export type * from "./schema-inbox.js";
export type * from "./schema-workflows.js";
export type * from "./schema-review.js";
export type * from "./schema-runners.js";
export type * from "./schema-settings.js";

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
  agent_budgets: AgentBudgetsTable;
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

/** A connection or transaction over the Grove schema (Transaction<DB> is a Kysely<DB>). */
export type Db = Kysely<DB>;

/** What every repository function needs: where to run, and which dialect it talks to. */
export interface Ctx {
  db: Db;
  dialect: StoreDialect;
}
