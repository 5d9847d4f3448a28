import { sql, type Kysely } from "kysely";
import type { DB, StoreDialect } from "../schema.js";
import type { Migration } from "./migration.js";

/**
 * LC-2 / LC-4: durable cleanup jobs. `task_id` has no foreign key on purpose: a delete job
 * outlives its task row (the task is deleted when the job is activated) and must stay
 * readable through `GET /cleanup-jobs?taskId=` and keep its snapshot for retries.
 * A partial unique index allows at most one active job per task, as a backstop to the
 * task-row lock taken when a job is reserved.
 */
async function up(db: Kysely<DB>, dialect: StoreDialect): Promise<void> {
  const bool = dialect === "sqlite" ? "integer" : "boolean";
  await db.schema
    .createTable("cleanup_jobs")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("task_id", "text", (c) => c.notNull())
    .addColumn("trigger", "text", (c) => c.notNull())
    .addColumn("state", "text", (c) => c.notNull())
    .addColumn("runner_id", "text", (c) => c.notNull())
    .addColumn("attempts", "integer", (c) => c.notNull())
    .addColumn("max_attempts", "integer", (c) => c.notNull())
    .addColumn("last_error", "text")
    .addColumn("discard_changes", bool, (c) => c.notNull())
    .addColumn("snapshot", "text")
    .addColumn("next_run_at", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("cleanup_jobs_task_ix").on("cleanup_jobs").columns(["task_id", "created_at"]).execute();
  await db.schema.createIndex("cleanup_jobs_due_ix").on("cleanup_jobs").columns(["runner_id", "state", "next_run_at"]).execute();
  await db.schema
    .createIndex("cleanup_jobs_active_uq")
    .unique()
    .on("cleanup_jobs")
    .column("task_id")
    .where(sql.ref("state"), "in", ["prepared", "pending", "running", "retry_wait"])
    .execute();
}

export const m002CleanupJobs: Migration = { name: "002-cleanup-jobs", up };
