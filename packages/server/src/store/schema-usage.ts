import type { ColumnType } from "kysely";

/** Kysely table types (schema.ts): Token usage and budgets (USE-1, USE-2). */

/** USE-1 (migration 025): the usage ledger, one row per recorded change. */
export interface UsageRecordsTable {
  id: string;
  session_id: string;
  task_id: string;
  repository_id: string | null;
  agent: string;
  runner_id: string;
  at: string;
  day: string;
  tokens_in: ColumnType<number | string, number, number>;
  tokens_out: ColumnType<number | string, number, number>;
  cache_read: ColumnType<number | string, number, number>;
  cache_write: ColumnType<number | string, number, number>;
  cost: number;
  currency: string;
  estimated: number;
}

/** USE-2 (migration 025): per UTC day totals (the global daily cap). */
export interface UsageDaysTable {
  day: string;
  tokens: ColumnType<number | string, number, number>;
  cost: number;
}

/** USE-2 (migration 024): the daily cap a person set (`key = 'daily'`), shared by every runner. */
export interface UsageSettingsTable {
  key: string;
  budget_cost: number | null;
  budget_tokens: ColumnType<number | string | null, number | null, number | null>;
  set_at: string;
}

/** USE-2: a person's daily cap per agent profile (migration 032). */
export interface AgentBudgetsTable {
  name: string;
  budget_cost: number | null;
  budget_tokens: ColumnType<number | string | null, number | null, number | null>;
  set_at: string;
}
