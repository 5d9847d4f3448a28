import { closeSync, mkdirSync, openSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { Kysely, PostgresDialect, SqliteDialect } from "kysely";
import { MIGRATIONS } from "./migrations/index.js";
import { migrateToLatest } from "./migrator.js";
import { loadPg } from "./pg-lazy.js";
import type { DB, StoreDialect } from "./schema.js";
import { withStatementCache } from "./sqlite-statements.js";
import { Store } from "./store.js";

export interface OpenStoreOptions {
  /** `$GROVE_HOME`; the SQLite file is `${home}/grove.db`. */
  home: string;
  /** `GROVE_DATABASE_URL`: a `postgres://` or `postgresql://` URL selects PostgreSQL. */
  databaseUrl?: string;
  /**
   * PostgreSQL only: an idle pooled connection failed (server restart, terminated backend).
   * The pool drops that connection and opens a new one on the next query; this is for logging.
   */
  onIdleConnectionError?: (e: Error) => void;
}

/**
 * ST-1: a Kysely instance over the configured database, without migrating (tests of the
 * migrator use this directly; the server uses `openStore`).
 */
export function openDatabase(opts: OpenStoreOptions): { db: Kysely<DB>; dialect: StoreDialect } {
  const url = opts.databaseUrl;
  if (url !== undefined && url !== "") {
    if (!/^postgres(ql)?:\/\//.test(url)) {
      // Never echo the URL: it may carry a password.
      throw new Error("unsupported database URL: only postgres:// and postgresql:// are supported");
    }
    const pool = new (loadPg().Pool)({ connectionString: url, max: 10 });
    // Without a listener, an idle client's error is re-emitted on the pool as an unhandled
    // 'error' event and would crash the process.
    pool.on("error", (e) => opts.onIdleConnectionError?.(e));
    return { db: new Kysely<DB>({ dialect: new PostgresDialect({ pool }) }), dialect: "postgres" };
  }
  mkdirSync(opts.home, { recursive: true, mode: 0o700 });
  const file = join(opts.home, "grove.db");
  // SEC-6: created 0600 before SQLite opens it; SQLite gives its WAL and SHM files the database file's mode.
  closeSync(openSync(file, "a", 0o600));
  const sqlite = new Database(file);
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("busy_timeout = 5000");
  // Off by default in SQLite; the cascades of the schema depend on it.
  sqlite.pragma("foreign_keys = ON");
  return { db: new Kysely<DB>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) }), dialect: "sqlite" };
}

/**
 * Opens the store and migrates it to the latest schema (ST-1, ST-2). A failed migration
 * throws an Error starting with "migration failed:" and leaves the database unchanged.
 */
export async function openStore(opts: OpenStoreOptions): Promise<Store> {
  const { db, dialect } = openDatabase(opts);
  try {
    await migrateToLatest(db, dialect, MIGRATIONS);
  } catch (e) {
    await db.destroy().catch(() => undefined);
    throw e;
  }
  return new Store(db, dialect);
}
