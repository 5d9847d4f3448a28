import type Database from "better-sqlite3";
import type { SqliteDatabase } from "kysely";

/** Prepared statements kept per SQL text; the least recently used go past this many. */
const MAX_STATEMENTS = 500;

/**
 * The SQLite connection as Kysely sees it, with prepared statements reused: Kysely's SQLite
 * driver prepares every query anew, and preparing costs more than running the small statements
 * Grove's hot paths issue (a usage report is a dozen of them, USE-1's bench). A statement still
 * being iterated (`busy`) is never handed out twice: the next caller gets a fresh one.
 */
export function withStatementCache(db: Database.Database, max = MAX_STATEMENTS): SqliteDatabase {
  const cache = new Map<string, Database.Statement>();
  return {
    close: () => db.close(),
    prepare(sql: string) {
      const hit = cache.get(sql);
      if (hit && !hit.busy) {
        // Map order is the LRU order: a hit moves to the back.
        cache.delete(sql);
        cache.set(sql, hit);
        return hit;
      }
      const stmt = db.prepare(sql);
      cache.set(sql, stmt);
      if (cache.size > max) cache.delete(cache.keys().next().value!);
      return stmt;
    },
  };
}
