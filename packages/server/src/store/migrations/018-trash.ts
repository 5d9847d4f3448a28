import type { Kysely } from "kysely";
import type { DB } from "../schema.js";
import type { Migration } from "./migration.js";

/**
 * LIVE-5: a deleted task stays in the trash (`tasks.deleted_at`) with its sessions, transcripts,
 * branches and saved work until its purge job removes the row after the retention period.
 * Null for every task that existed before (none of them was in a trash).
 */
async function up(db: Kysely<DB>): Promise<void> {
  await db.schema.alterTable("tasks").addColumn("deleted_at", "text").execute();
}

export const m018Trash: Migration = { name: "018-trash", up };
