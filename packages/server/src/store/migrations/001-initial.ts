import type { Kysely } from "kysely";
import type { DB, StoreDialect } from "../schema.js";
import type { Migration } from "./migration.js";

/**
 * The initial schema (ENV-1, SES-1, SES-5). Foreign-key policy:
 * - children that cannot outlive their parent cascade: task_repositories → tasks,
 *   task_environment_repos → task_environments, messages → sessions;
 * - sessions and task_environments cascade only from their task row; a session's link to its
 *   environment is SET NULL, so an environment reset never deletes a conversation;
 * - repository references never cascade: a repository in use cannot be deleted silently;
 * - agent_processes has no foreign key: it is this runner's record of live pids, and it must
 *   survive the deletion of its session or task until cleanup has stopped the process (LC-3).
 */
async function up(db: Kysely<DB>, dialect: StoreDialect): Promise<void> {
  const bool = dialect === "sqlite" ? "integer" : "boolean";
  const s = db.schema;

  await s
    .createTable("repositories")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("name", "text", (c) => c.notNull().unique())
    .addColumn("path", "text", (c) => c.notNull().unique())
    .addColumn("url", "text")
    .addColumn("provider", "text", (c) => c.notNull())
    .addColumn("default_branch", "text", (c) => c.notNull())
    .addColumn("pull_before_worktree", bool, (c) => c.notNull())
    .addColumn("credential_policy", "text", (c) => c.notNull())
    .addColumn("has_credential", bool, (c) => c.notNull())
    .addColumn("branch_template", "text", (c) => c.notNull())
    .addColumn("copy_files", "text", (c) => c.notNull())
    .addColumn("setup_script", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();

  await s
    .createTable("tasks")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("title", "text", (c) => c.notNull())
    .addColumn("description", "text", (c) => c.notNull())
    .addColumn("state", "text", (c) => c.notNull())
    .addColumn("dir_name", "text", (c) => c.notNull().unique())
    .addColumn("archived_at", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();

  await s
    .createTable("task_repositories")
    .addColumn("task_id", "text", (c) => c.notNull().references("tasks.id").onDelete("cascade"))
    .addColumn("position", "integer", (c) => c.notNull())
    .addColumn("repository_id", "text", (c) => c.notNull().references("repositories.id"))
    .addColumn("base_branch", "text", (c) => c.notNull())
    .addColumn("checkout_branch", "text")
    .addColumn("pr_number", "integer")
    .addPrimaryKeyConstraint("task_repositories_pk", ["task_id", "position"])
    .execute();

  await s
    .createTable("task_environments")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("task_id", "text", (c) => c.notNull().references("tasks.id").onDelete("cascade"))
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("workspace_path", "text")
    .addColumn("runner_id", "text", (c) => c.notNull())
    // A soft pointer: the materializing session may be deleted; no FK (and no cycle).
    .addColumn("materializer_session_id", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  // ENV-1: at most one environment per task, enforced by the database as a backstop to SES-2.
  await s.createIndex("task_environments_task_uq").unique().on("task_environments").column("task_id").execute();
  await s.createIndex("task_environments_runner_ix").on("task_environments").column("runner_id").execute();

  await s
    .createTable("task_environment_repos")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("environment_id", "text", (c) => c.notNull().references("task_environments.id").onDelete("cascade"))
    .addColumn("repository_id", "text", (c) => c.notNull().references("repositories.id"))
    .addColumn("branch_slug", "text", (c) => c.notNull())
    .addColumn("worktree_id", "text")
    .addColumn("worktree_path", "text")
    .addColumn("worktree_branch", "text")
    .addColumn("base_branch", "text", (c) => c.notNull())
    .addColumn("position", "integer", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("error_message", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .addColumn("deleted_at", "text")
    .execute();
  await s.createIndex("task_environment_repos_env_ix").on("task_environment_repos").columns(["environment_id", "position"]).execute();

  await s
    .createTable("sessions")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("task_id", "text", (c) => c.notNull().references("tasks.id").onDelete("cascade"))
    .addColumn("agent", "text", (c) => c.notNull())
    .addColumn("state", "text", (c) => c.notNull())
    .addColumn("task_environment_id", "text", (c) => c.references("task_environments.id").onDelete("set null"))
    .addColumn("acp_session_id", "text")
    .addColumn("last_error", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await s.createIndex("sessions_task_ix").on("sessions").columns(["task_id", "created_at"]).execute();
  await s.createIndex("sessions_env_ix").on("sessions").column("task_environment_id").execute();

  await s
    .createTable("messages")
    // A database-assigned counter gives a total order even for equal timestamps.
    .addColumn("seq", dialect === "sqlite" ? "integer" : "bigserial", (c) => (dialect === "sqlite" ? c.primaryKey().autoIncrement() : c.primaryKey()))
    .addColumn("id", "text", (c) => c.notNull().unique())
    .addColumn("session_id", "text", (c) => c.notNull().references("sessions.id").onDelete("cascade"))
    .addColumn("role", "text", (c) => c.notNull())
    .addColumn("text", "text", (c) => c.notNull())
    .addColumn("data", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();
  await s.createIndex("messages_session_seq_ix").on("messages").columns(["session_id", "seq"]).execute();

  await s
    .createTable("agent_processes")
    .addColumn("session_id", "text", (c) => c.primaryKey())
    .addColumn("runner_id", "text", (c) => c.notNull())
    .addColumn("pid", "integer", (c) => c.notNull())
    .addColumn("start_time", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();
  await s.createIndex("agent_processes_runner_ix").on("agent_processes").column("runner_id").execute();
}

export const m001Initial: Migration = { name: "001-initial", up };
