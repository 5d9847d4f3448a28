import type { Kysely } from "kysely";
import type { DB } from "../schema.js";
import type { Migration } from "./migration.js";

/**
 * USE-2: a person's daily cap per agent profile (`PUT /agents/:name/budget`), shared by every
 * runner: one row per profile while a cap is in force, `set_at` its version (the 80 %/100 % alerts
 * fire once per version). The index serves the per-agent day totals checked on every usage report.
 */
async function up(db: Kysely<DB>): Promise<void> {
  await db.schema
    .createTable("agent_budgets")
    .addColumn("name", "text", (c) => c.primaryKey())
    .addColumn("budget_cost", "double precision")
    .addColumn("budget_tokens", "bigint")
    .addColumn("set_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("usage_records_agent_day_ix").on("usage_records").columns(["agent", "day"]).execute();
}

export const m032AgentBudgets: Migration = { name: "032-agent-budgets", up };
