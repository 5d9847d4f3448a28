import { createRequire } from "node:module";
import type PgModule from "pg";

/**
 * The `pg` driver, loaded on first use: a SQLite server never loads it (with what it pulls in,
 * about a tenth of the time to `listening`).
 */
export function loadPg(): typeof PgModule {
  return createRequire(import.meta.url)("pg") as typeof PgModule;
}
