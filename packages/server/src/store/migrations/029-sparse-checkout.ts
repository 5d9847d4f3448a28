import type { Kysely } from "kysely";
import type { DB } from "../schema.js";
import type { Migration } from "./migration.js";

/**
 * WT-11: a repository's sparse-checkout cone (`repositories.sparse_checkout`, a JSON array of
 * directories; `[]` = the whole tree, what every repository registered before had).
 */
async function up(db: Kysely<DB>): Promise<void> {
  await db.schema
    .alterTable("repositories")
    .addColumn("sparse_checkout", "text", (c) => c.notNull().defaultTo("[]"))
    .execute();
}

export const m029SparseCheckout: Migration = { name: "029-sparse-checkout", up };
