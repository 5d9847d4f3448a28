import type { ColumnType } from "kysely";

/**
 * Dialect differences are confined to three column kinds:
 * - timestamps are ISO-8601 text on both dialects (sortable, no driver date conversion);
 * - booleans are `boolean` on PostgreSQL and integer 0/1 on SQLite (see `toDbBool`);
 * - JSON values (copy files, last errors, message data) are text on both.
 */
export type DbBool = ColumnType<boolean | number, boolean | number, boolean | number>;

export type StoreDialect = "sqlite" | "postgres";

/** Booleans as the dialect stores them: PostgreSQL `boolean`, SQLite integer 0/1. */
export function toDbBool(dialect: StoreDialect, v: boolean): boolean | number {
  return dialect === "sqlite" ? (v ? 1 : 0) : v;
}

export function fromDbBool(v: boolean | number): boolean {
  return v === true || v === 1;
}
