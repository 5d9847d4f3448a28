import { sql } from "kysely";
import type { Kysely } from "kysely";
import type { Migration } from "./migrations/migration.js";
import type { DB, StoreDialect } from "./schema.js";
import { runInTransaction } from "./transaction.js";

/** Arbitrary constant key of the PostgreSQL advisory lock that serializes migrating processes. */
const PG_MIGRATION_LOCK = 74200001;

/**
 * ST-2: applies the migrations not yet recorded in `grove_migrations`, in order, each in its
 * own transaction together with its bookkeeping row, so a failure leaves the database exactly
 * as the previous migration left it. On PostgreSQL an advisory transaction lock serializes
 * server processes that start at the same time (ST-3); the applied set is re-read under it.
 *
 * Throws an Error whose message starts with "migration failed:" (the server prints it and
 * refuses to start). Returns the names applied by this call.
 */
export async function migrateToLatest(db: Kysely<DB>, dialect: StoreDialect, migrations: readonly Migration[]): Promise<string[]> {
  const known = new Set(migrations.map((m) => m.name));
  const initiallyApplied = await step(db, dialect, "reading the migration history", async (trx) => {
    const applied = await appliedNames(trx);
    const unknown = [...applied].filter((n) => !known.has(n));
    if (unknown.length > 0) {
      throw new Error(`the database was migrated by a newer Grove (unknown migrations: ${unknown.join(", ")})`);
    }
    return applied;
  });

  const done: string[] = [];
  for (const m of migrations) {
    if (initiallyApplied.has(m.name)) continue;
    const ran = await step(db, dialect, m.name, async (trx) => {
      // Another process may have applied it while we waited for the lock.
      if ((await appliedNames(trx)).has(m.name)) return false;
      await m.up(trx, dialect);
      await trx.insertInto("grove_migrations").values({ name: m.name, applied_at: new Date().toISOString() }).execute();
      return true;
    });
    if (ran) done.push(m.name);
  }
  return done;
}

/** Names of the applied migrations (the bookkeeping table is created on first use). */
export async function listAppliedMigrations(db: Kysely<DB>, dialect: StoreDialect): Promise<string[]> {
  const applied = await step(db, dialect, "reading the migration history", appliedNames);
  return [...applied].sort();
}

async function step<T>(db: Kysely<DB>, dialect: StoreDialect, what: string, fn: (trx: Kysely<DB>) => Promise<T>): Promise<T> {
  try {
    return await runInTransaction(db, dialect, async (trx) => {
      if (dialect === "postgres") await sql`select pg_advisory_xact_lock(${PG_MIGRATION_LOCK})`.execute(trx);
      // Inside the lock: concurrent CREATE TABLE IF NOT EXISTS can still collide on PostgreSQL.
      await trx.schema
        .createTable("grove_migrations")
        .ifNotExists()
        .addColumn("name", "text", (c) => c.primaryKey())
        .addColumn("applied_at", "text", (c) => c.notNull())
        .execute();
      return fn(trx);
    });
  } catch (e) {
    const reason = e instanceof Error ? e.message : String(e);
    throw new Error(`migration failed: ${what}: ${reason}`, { cause: e });
  }
}

async function appliedNames(trx: Kysely<DB>): Promise<Set<string>> {
  const rows = await trx.selectFrom("grove_migrations").select("name").execute();
  return new Set(rows.map((r) => r.name));
}
