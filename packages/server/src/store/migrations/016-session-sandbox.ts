import type { Kysely } from "kysely";
import type { DB } from "../schema.js";
import type { Migration } from "./migration.js";

/**
 * SBX-1..3: whether a session's agent runs in the OS sandbox (`sessions.sandbox`, `confined` or
 * `unconfined`) and how many of its connections the egress proxy refused
 * (`sessions.blocked_connections`). Sessions from before the sandbox ran unconfined.
 */
async function up(db: Kysely<DB>): Promise<void> {
  await db.schema
    .alterTable("sessions")
    .addColumn("sandbox", "text", (c) => c.notNull().defaultTo("unconfined"))
    .execute();
  await db.schema
    .alterTable("sessions")
    .addColumn("blocked_connections", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
}

export const m016SessionSandbox: Migration = { name: "016-session-sandbox", up };
