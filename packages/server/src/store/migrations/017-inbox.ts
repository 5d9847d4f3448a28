import type { Kysely } from "kysely";
import type { DB } from "../schema.js";
import type { Migration } from "./migration.js";

/**
 * LIVE-4: the durable attention inbox. One row per thing that needs the person; `cause_key`
 * names the occurrence that raised it (a permission request id, a session's turn end), unique,
 * so a cause raises one item however often it is seen (a retry, a frame relayed between
 * runners). `state` open → done once (dismissed, or the cause resolved); `read_at` when first
 * opened. Rows go with their task.
 */
async function up(db: Kysely<DB>): Promise<void> {
  await db.schema
    .createTable("inbox_items")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("task_id", "text", (c) => c.notNull().references("tasks.id").onDelete("cascade"))
    .addColumn("session_id", "text")
    .addColumn("cause_key", "text", (c) => c.notNull().unique())
    .addColumn("title", "text", (c) => c.notNull())
    .addColumn("detail", "text")
    .addColumn("state", "text", (c) => c.notNull())
    .addColumn("read_at", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("resolved_at", "text")
    .execute();
  await db.schema.createIndex("inbox_items_state_ix").on("inbox_items").columns(["state", "created_at"]).execute();
  await db.schema.createIndex("inbox_items_session_ix").on("inbox_items").columns(["session_id", "state"]).execute();
  await db.schema.createIndex("inbox_items_task_ix").on("inbox_items").columns(["task_id", "state"]).execute();
}

export const m017Inbox: Migration = { name: "017-inbox", up };
