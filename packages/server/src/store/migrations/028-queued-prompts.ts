import type { Kysely } from "kysely";
import type { DB } from "../schema.js";
import type { Migration } from "./migration.js";

/**
 * WEB-37: follow-ups a person queued while a turn ran (`sessions.queued_prompts`, a JSON array of
 * `{id, text, createdAt}`, oldest first; null when none). The session's row carries them, so the
 * compare-and-set that queues one also checks that a turn still runs.
 */
async function up(db: Kysely<DB>): Promise<void> {
  await db.schema.alterTable("sessions").addColumn("queued_prompts", "text").execute();
}

export const m028QueuedPrompts: Migration = { name: "028-queued-prompts", up };
