import type { Kysely } from "kysely";
import type { DB } from "../schema.js";
import type { Migration } from "./migration.js";

/**
 * MCP-3: a subtask's parent link. Null for a task a person created; set once, at creation, by an
 * agent's `subtask_create`. No foreign key: a parent in the trash or purged leaves its children
 * as they are (their own lifecycle), and the link simply names a task that is gone.
 */
async function up(db: Kysely<DB>): Promise<void> {
  await db.schema.alterTable("tasks").addColumn("parent_id", "text").execute();
  await db.schema.createIndex("tasks_parent_ix").on("tasks").column("parent_id").execute();
}

export const m021TaskParent: Migration = { name: "021-task-parent", up };
