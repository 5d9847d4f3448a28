import type { Kysely } from "kysely";
import type { DB } from "../schema.js";
import type { Migration } from "./migration.js";

/**
 * MCP-2: what an agent last reported with `report_progress` — one row per task (the latest
 * report wins), shown on the card and the task page. Rows go with their task.
 */
async function up(db: Kysely<DB>): Promise<void> {
  await db.schema
    .createTable("task_progress")
    .addColumn("task_id", "text", (c) => c.primaryKey().references("tasks.id").onDelete("cascade"))
    .addColumn("session_id", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("plan", "text")
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
}

export const m019TaskProgress: Migration = { name: "019-task-progress", up };
