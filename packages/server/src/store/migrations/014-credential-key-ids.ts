import type { Kysely } from "kysely";
import type { DB } from "../schema.js";
import type { Migration } from "./migration.js";

/**
 * Remote repositories on every runner: the public id of each runner's credential key
 * (`runners.credential_key_id`, see git/credential-vault.ts credentialKeyId) and of the key that
 * sealed each stored credential (`repository_credentials.key_id`). Placement sends a task with a
 * managed credential only to runners whose key opens it. Both nullable: rows written before this
 * migration have no id (a credential without one is opened only by the runner that registered
 * its repository).
 */
async function up(db: Kysely<DB>): Promise<void> {
  await db.schema.alterTable("runners").addColumn("credential_key_id", "text").execute();
  await db.schema.alterTable("repository_credentials").addColumn("key_id", "text").execute();
}

export const m014CredentialKeyIds: Migration = { name: "014-credential-key-ids", up };
