import type { Kysely } from "kysely";
import type { DB } from "../schema.js";
import type { Migration } from "./migration.js";

/**
 * USE-1/USE-2: usage and budgets.
 * - `sessions.usage_*`: a session's running totals (tokens summed over turns, the latest context
 *   reading, cost) and `usage_reported_cost`, the agent's own cumulative cost as last reported
 *   (null while it reported none: then the cost is estimated from the price table).
 * - `tasks.usage_*`: the same totals per task (what a task budget is measured against, kept
 *   when a session is deleted); `budget_*`: the person's budget, `budget_continue` the turns a
 *   person let run past it, `budget_set_at` the budget's version (alerts are raised once per version).
 * - `usage_records`: the ledger, one row per recorded change with what it added, keyed by
 *   session, task, repository, agent profile, runner and UTC day for the roll-ups. No foreign
 *   keys: accounting outlives the task (a purged task's spend still counts for its day).
 * - `usage_days`: per UTC day totals, what the global daily cap is checked against across runners.
 * Integers are `bigint` (token counts pass 2^31 over a long history); costs `double precision`.
 */
async function up(db: Kysely<DB>): Promise<void> {
  for (const col of ["usage_tokens_in", "usage_tokens_out", "usage_cache_read", "usage_cache_write"] as const) {
    await db.schema
      .alterTable("sessions")
      .addColumn(col, "bigint", (c) => c.notNull().defaultTo(0))
      .execute();
  }
  await db.schema.alterTable("sessions").addColumn("usage_context_used", "bigint").execute();
  await db.schema.alterTable("sessions").addColumn("usage_context_window", "bigint").execute();
  await db.schema
    .alterTable("sessions")
    .addColumn("usage_cost", "double precision", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable("sessions").addColumn("usage_currency", "text").execute();
  await db.schema
    .alterTable("sessions")
    .addColumn("usage_estimated", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable("sessions").addColumn("usage_reported_cost", "double precision").execute();

  for (const col of ["usage_tokens_in", "usage_tokens_out"] as const) {
    await db.schema
      .alterTable("tasks")
      .addColumn(col, "bigint", (c) => c.notNull().defaultTo(0))
      .execute();
  }
  await db.schema
    .alterTable("tasks")
    .addColumn("usage_cost", "double precision", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable("tasks").addColumn("budget_cost", "double precision").execute();
  await db.schema.alterTable("tasks").addColumn("budget_tokens", "bigint").execute();
  await db.schema
    .alterTable("tasks")
    .addColumn("budget_continue", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable("tasks").addColumn("budget_set_at", "text").execute();

  await db.schema
    .createTable("usage_records")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("session_id", "text", (c) => c.notNull())
    .addColumn("task_id", "text", (c) => c.notNull())
    .addColumn("repository_id", "text")
    .addColumn("agent", "text", (c) => c.notNull())
    .addColumn("runner_id", "text", (c) => c.notNull())
    .addColumn("at", "text", (c) => c.notNull())
    .addColumn("day", "text", (c) => c.notNull())
    .addColumn("tokens_in", "bigint", (c) => c.notNull())
    .addColumn("tokens_out", "bigint", (c) => c.notNull())
    .addColumn("cache_read", "bigint", (c) => c.notNull())
    .addColumn("cache_write", "bigint", (c) => c.notNull())
    .addColumn("cost", "double precision", (c) => c.notNull())
    .addColumn("currency", "text", (c) => c.notNull())
    .addColumn("estimated", "integer", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("usage_records_day_ix").on("usage_records").columns(["day"]).execute();
  await db.schema.createIndex("usage_records_task_ix").on("usage_records").columns(["task_id", "day"]).execute();

  await db.schema
    .createTable("usage_days")
    .addColumn("day", "text", (c) => c.primaryKey())
    .addColumn("tokens", "bigint", (c) => c.notNull())
    .addColumn("cost", "double precision", (c) => c.notNull())
    .execute();
}

export const m025Usage: Migration = { name: "025-usage", up };
