import type { Kysely } from "kysely";
import type { DB } from "../schema.js";
import type { Migration } from "./migration.js";

/**
 * LIVE-2: the outcome of each session's latest finished turn (`sessions.last_turn`, JSON
 * `LastTurn` or null), so every client can tell a refused or failed turn from a finished one
 * without reading the transcript. Null for sessions whose turns ended before this migration.
 */
async function up(db: Kysely<DB>): Promise<void> {
  await db.schema.alterTable("sessions").addColumn("last_turn", "text").execute();
}

export const m015TurnOutcomes: Migration = { name: "015-turn-outcomes", up };
