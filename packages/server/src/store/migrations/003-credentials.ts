import type { Kysely } from "kysely";
import type { DB } from "../schema.js";
import type { Migration } from "./migration.js";

/**
 * RR-2: provider credentials, one per repository, sealed (AES-256-GCM, key in GROVE_HOME) —
 * the database never holds a token in clear. Deleting a repository's credential is explicit;
 * repositories are never deleted silently (see 001), so no cascade is needed.
 */
async function up(db: Kysely<DB>): Promise<void> {
  await db.schema
    .createTable("repository_credentials")
    .addColumn("repository_id", "text", (c) => c.primaryKey().references("repositories.id"))
    .addColumn("sealed", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
}

export const m003Credentials: Migration = { name: "003-credentials", up };
