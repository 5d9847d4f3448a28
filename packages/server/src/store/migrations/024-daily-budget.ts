import type { Kysely } from "kysely";
import type { DB } from "../schema.js";
import type { Migration } from "./migration.js";

/**
 * USE-2: the global daily cap a person set through the API (`PUT /usage/daily-budget`), shared by
 * every runner. One row (`key = 'daily'`) while the person's cap is in force — it wins over
 * GROVE_DAILY_BUDGET; both limits null means the person turned the cap off. `set_at` is the
 * cap's version: the 80 %/100 % alerts fire once per version.
 */
async function up(db: Kysely<DB>): Promise<void> {
  await db.schema
    .createTable("usage_settings")
    .addColumn("key", "text", (c) => c.primaryKey())
    .addColumn("budget_cost", "double precision")
    .addColumn("budget_tokens", "bigint")
    .addColumn("set_at", "text", (c) => c.notNull())
    .execute();
}

export const m024DailyBudget: Migration = { name: "024-daily-budget", up };
