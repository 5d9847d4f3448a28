import type { Kysely } from "kysely";
import type { DB } from "../schema.js";
import type { Migration } from "./migration.js";

/**
 * Runners registry: one row per server process identity (`runnerId`), refreshed by its
 * heartbeat. `heartbeat_ms` is the interval the runner announced, so every reader judges it
 * offline by the runner's own bound (3 × heartbeat), whatever its own interval is.
 * `stopped_at` is set by a graceful stop so the runner shows offline at once; a new start clears it.
 */
async function up(db: Kysely<DB>): Promise<void> {
  await db.schema
    .createTable("runners")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("host", "text", (c) => c.notNull())
    .addColumn("url", "text", (c) => c.notNull())
    .addColumn("labels", "text", (c) => c.notNull())
    .addColumn("max_agents", "integer")
    .addColumn("live_agents", "integer", (c) => c.notNull())
    .addColumn("version", "text", (c) => c.notNull())
    .addColumn("heartbeat_ms", "integer", (c) => c.notNull())
    .addColumn("started_at", "text", (c) => c.notNull())
    .addColumn("last_seen_at", "text", (c) => c.notNull())
    .addColumn("stopped_at", "text")
    .execute();
}

export const m012Runners: Migration = { name: "012-runners", up };
