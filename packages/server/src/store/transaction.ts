import { sql } from "kysely";
import type { Kysely } from "kysely";
import type { StoreDialect } from "./schema.js";

/**
 * Runs `fn` in one database transaction and commits, or rolls back on any throw.
 *
 * SQLite: `BEGIN IMMEDIATE` on the store's single connection, so the write lock is taken
 * up front. A deferred transaction that reads first and writes later can fail with
 * SQLITE_BUSY instead of waiting (lock upgrade), which would break the "check then insert"
 * transactions (SES-2, LC-2). PostgreSQL: Kysely's transaction on one pooled connection;
 * callers lock the rows they check (`SELECT … FOR UPDATE`).
 */
export async function runInTransaction<D, T>(db: Kysely<D>, dialect: StoreDialect, fn: (trx: Kysely<D>) => Promise<T>): Promise<T> {
  if (dialect === "postgres") return db.transaction().execute(fn);
  return db.connection().execute(async (conn) => {
    await sql`begin immediate`.execute(conn);
    try {
      const result = await fn(conn);
      await sql`commit`.execute(conn);
      return result;
    } catch (e) {
      // Some SQLite errors already ended the transaction; a failing rollback must not mask `e`.
      await sql`rollback`.execute(conn).catch(() => undefined);
      throw e;
    }
  });
}

/** True when `e` is a unique-constraint violation on either dialect. */
export function isUniqueViolation(e: unknown): boolean {
  if (typeof e !== "object" || e === null) return false;
  const code = (e as { code?: unknown }).code;
  // pg: SQLSTATE 23505; better-sqlite3: SQLITE_CONSTRAINT_UNIQUE / _PRIMARYKEY.
  return code === "23505" || code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY";
}
