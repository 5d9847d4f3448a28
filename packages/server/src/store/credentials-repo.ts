import type { Db } from "./schema.js";

/**
 * RR-2 storage of sealed credentials. The store sees only the opaque sealed text (encryption
 * happens in git/credential-vault.ts with the key in GROVE_HOME): a database dump alone reveals
 * no token. `keyId` names the key that sealed it (credentialKeyId), never the key itself.
 */
export async function putCredential(db: Db, repositoryId: string, sealed: string, keyId: string, now: string): Promise<void> {
  await db
    .insertInto("repository_credentials")
    .values({ repository_id: repositoryId, sealed, key_id: keyId, created_at: now, updated_at: now })
    .onConflict((oc) => oc.column("repository_id").doUpdateSet({ sealed, key_id: keyId, updated_at: now }))
    .execute();
}

export async function getCredential(db: Db, repositoryId: string): Promise<string | undefined> {
  const row = await db.selectFrom("repository_credentials").select("sealed").where("repository_id", "=", repositoryId).executeTakeFirst();
  return row?.sealed;
}
