import type { Kysely } from "kysely";
import type { DB } from "../schema.js";
import type { Migration } from "./migration.js";

/**
 * WEB-44: settings a person changes through the API instead of a file, shared by every runner.
 * `person_settings`: one row per key (`editor`: the "Open in editor" command, which wins over
 * GROVE_EDITOR while set). `agent_settings`: per agent profile, the person's permission policy
 * and sandbox choice, each null while agents.json's (or the built-in) value applies.
 */
async function up(db: Kysely<DB>): Promise<void> {
  await db.schema
    .createTable("person_settings")
    .addColumn("key", "text", (c) => c.primaryKey())
    .addColumn("value", "text", (c) => c.notNull())
    .addColumn("set_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createTable("agent_settings")
    .addColumn("name", "text", (c) => c.primaryKey())
    .addColumn("permission_policy", "text")
    .addColumn("sandbox", "text")
    .addColumn("set_at", "text", (c) => c.notNull())
    .execute();
}

export const m031PersonSettings: Migration = { name: "031-person-settings", up };
