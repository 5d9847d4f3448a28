import type { Kysely } from "kysely";
import type { DB } from "../schema.js";
import type { Migration } from "./migration.js";

/**
 * MCP-3: an agent's `ask_user` questions. Each is an inbox item of kind `question` (its
 * `inbox_item_id`) until answered, timed out or withdrawn; durable, so a question asked before a
 * server restart is still answerable after it. `choices` is JSON (null = a free answer).
 */
async function up(db: Kysely<DB>): Promise<void> {
  await db.schema
    .createTable("questions")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("task_id", "text", (c) => c.notNull().references("tasks.id").onDelete("cascade"))
    .addColumn("session_id", "text", (c) => c.notNull())
    .addColumn("inbox_item_id", "text", (c) => c.notNull().unique())
    .addColumn("text", "text", (c) => c.notNull())
    .addColumn("choices", "text")
    .addColumn("state", "text", (c) => c.notNull())
    .addColumn("answer", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("deadline_at", "text", (c) => c.notNull())
    .addColumn("answered_at", "text")
    .execute();
}

export const m020Questions: Migration = { name: "020-questions", up };
