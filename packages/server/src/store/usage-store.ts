import { sql } from "kysely";
import type { SessionUsage, TaskBudget, UsageGroupBy, UsageRow } from "@grove/protocol";
import { roundCost, type TokenCounts, type UsageTotals } from "../domain/usage.js";
import type { Ctx, Db } from "./schema.js";
import { usageOf } from "./sessions-repo.js";

/** One usage report of a session's agent (USE-1), as the recorder hands it over. */
export interface UsageInput {
  id: string;
  sessionId: string;
  taskId: string;
  /** The repository the ledger row is kept under; absent: the task's first, read in the write's transaction. */
  repositoryId?: string | null;
  agent: string;
  runnerId: string;
  at: string;
  day: string;
  /** Tokens this report adds (a turn's `PromptResponse.usage`). */
  tokens?: TokenCounts;
  /** The agent's own cumulative cost of the session (`usage_update.cost`). */
  reportedCost?: { amount: number; currency: string };
  /** The latest context reading (`usage_update.used` / `size`). */
  context?: { used: number; size: number };
  /** The cost of `tokens` from the price table, used while the agent reports no cost of its own. */
  estimate(t: TokenCounts): number;
}

/** What a recorded report changed. */
export interface UsageRecorded {
  usage: SessionUsage;
  /** Tokens (in + out) and cost the report added; zero for a context reading. */
  added: UsageTotals;
}

const GROUP_COLUMN = { task: "task_id", repository: "repository_id", agent: "agent", runner: "runner_id", day: "day" } as const;

const num = (x: number | string | null | undefined): number => (x === null || x === undefined ? 0 : Number(x));

/** USE-1/USE-2 persistence (migration 025): session and task totals, the ledger, day totals, budgets. Reached as `store.usage`. */
export class UsageStore {
  constructor(
    private readonly ctx: () => Ctx,
    private readonly tx: <T>(fn: (ctx: Ctx) => Promise<T>) => Promise<T>,
  ) {}

  /**
   * Records one report in one transaction: the session's and task's totals, a ledger row and the
   * day's totals (when it added tokens or cost). A reported cumulative cost adds what it grew by
   * (a smaller one is a restarted agent counting from zero again); tokens of a session whose
   * agent never reported a cost add their estimate, and the session is marked `estimated`.
   * undefined when the session no longer exists.
   */
  record(input: UsageInput): Promise<UsageRecorded | undefined> {
    return this.tx(async ({ db }) => {
      const prev = await db.selectFrom("sessions").select(["usage_reported_cost", "usage_currency"]).where("id", "=", input.sessionId).executeTakeFirst();
      if (!prev) return undefined;
      const t = input.tokens ?? { tokensIn: 0, tokensOut: 0, cacheRead: 0, cacheWrite: 0 };
      let cost = 0;
      let estimated = false;
      let reported = prev.usage_reported_cost;
      let currency = prev.usage_currency ?? null;
      if (input.reportedCost) {
        const before = prev.usage_reported_cost ?? 0;
        cost = roundCost(input.reportedCost.amount >= before ? input.reportedCost.amount - before : input.reportedCost.amount);
        reported = input.reportedCost.amount;
        currency = input.reportedCost.currency;
      } else if (prev.usage_reported_cost === null && t.tokensIn + t.tokensOut + t.cacheRead + t.cacheWrite > 0) {
        cost = input.estimate(t);
        estimated = true;
        currency ??= "USD";
      }
      const row = await db
        .updateTable("sessions")
        .set({
          usage_tokens_in: sql<number>`usage_tokens_in + ${t.tokensIn}`,
          usage_tokens_out: sql<number>`usage_tokens_out + ${t.tokensOut}`,
          usage_cache_read: sql<number>`usage_cache_read + ${t.cacheRead}`,
          usage_cache_write: sql<number>`usage_cache_write + ${t.cacheWrite}`,
          usage_cost: sql<number>`usage_cost + ${cost}`,
          usage_reported_cost: reported,
          usage_currency: currency,
          ...(estimated ? { usage_estimated: 1 } : {}),
          ...(input.context ? { usage_context_used: input.context.used, usage_context_window: input.context.size } : {}),
        })
        .where("id", "=", input.sessionId)
        .returningAll()
        .executeTakeFirstOrThrow();
      const tokens = t.tokensIn + t.tokensOut;
      if (tokens + t.cacheRead + t.cacheWrite > 0 || cost !== 0) {
        await db
          .updateTable("tasks")
          .set({
            usage_tokens_in: sql<number>`usage_tokens_in + ${t.tokensIn}`,
            usage_tokens_out: sql<number>`usage_tokens_out + ${t.tokensOut}`,
            usage_cost: sql<number>`usage_cost + ${cost}`,
          })
          .where("id", "=", input.taskId)
          .execute();
        const repositoryId =
          input.repositoryId !== undefined
            ? input.repositoryId
            : ((
                await db
                  .selectFrom("task_repositories")
                  .select("repository_id")
                  .where("task_id", "=", input.taskId)
                  .orderBy("position")
                  .limit(1)
                  .executeTakeFirst()
              )?.repository_id ?? null);
        await db
          .insertInto("usage_records")
          .values({
            id: input.id,
            session_id: input.sessionId,
            task_id: input.taskId,
            repository_id: repositoryId,
            agent: input.agent,
            runner_id: input.runnerId,
            at: input.at,
            day: input.day,
            tokens_in: t.tokensIn,
            tokens_out: t.tokensOut,
            cache_read: t.cacheRead,
            cache_write: t.cacheWrite,
            cost,
            currency: currency ?? "USD",
            estimated: estimated ? 1 : 0,
          })
          .execute();
        await db
          .insertInto("usage_days")
          .values({ day: input.day, tokens, cost })
          .onConflict((oc) =>
            oc.column("day").doUpdateSet({ tokens: sql<number>`usage_days.tokens + ${tokens}`, cost: sql<number>`usage_days.cost + ${cost}` }),
          )
          .execute();
      }
      return { usage: usageOf(row).usage ?? { tokensIn: 0, tokensOut: 0 }, added: { tokens, cost } };
    });
  }

  /**
   * USE-2: what the sessions a workflow started spent together, from the ledger (a deleted
   * session's spend still counts). Measured over every version of the workflow's name.
   */
  async workflowTotals(workflow: string): Promise<UsageTotals> {
    const db = this.ctx().db;
    const r = await db
      .selectFrom("usage_records")
      .select((eb) => [
        eb.fn.sum<number | string>("tokens_in").as("tin"),
        eb.fn.sum<number | string>("tokens_out").as("tout"),
        eb.fn.sum<number>("cost").as("cost"),
      ])
      .where(
        "session_id",
        "in",
        db
          .selectFrom("workflow_runs")
          .select("session_id")
          .where("workflow", "=", workflow)
          .where("session_id", "is not", null)
          .$narrowType<{ session_id: string }>(),
      )
      .executeTakeFirst();
    return { tokens: num(r?.tin) + num(r?.tout), cost: roundCost(num(r?.cost)) };
  }

  /**
   * USE-2: the task and its parents (`parent_id`), nearest first, with their budgets and budget
   * versions — one query for the whole chain (budgets are checked on every usage report). The
   * depth bound stops a corrupt cycle.
   */
  async budgetChain(taskId: string): Promise<{ id: string; budget?: TaskBudget; setAt: string | null }[]> {
    const r = await sql<{ id: string; budget_cost: number | null; budget_tokens: number | string | null; budget_set_at: string | null }>`
      WITH RECURSIVE chain(id, parent_id, budget_cost, budget_tokens, budget_set_at, depth) AS (
        SELECT id, parent_id, budget_cost, budget_tokens, budget_set_at, 0 FROM tasks WHERE id = ${taskId}
        UNION ALL
        SELECT t.id, t.parent_id, t.budget_cost, t.budget_tokens, t.budget_set_at, c.depth + 1 FROM tasks t JOIN chain c ON t.id = c.parent_id WHERE c.depth < 64
      )
      SELECT id, budget_cost, budget_tokens, budget_set_at FROM chain ORDER BY depth`.execute(this.ctx().db);
    return r.rows.map((row) => {
      const cost = row.budget_cost ?? undefined;
      const tokens = row.budget_tokens === null ? undefined : Number(row.budget_tokens);
      const budget =
        cost === undefined && tokens === undefined
          ? undefined
          : { ...(cost !== undefined ? { cost: Number(cost) } : {}), ...(tokens !== undefined ? { tokens } : {}) };
      return { id: row.id, ...(budget ? { budget } : {}), setAt: row.budget_set_at };
    });
  }

  /** USE-2: the summed totals of a task and all its subtasks (trashed ones included), in one query. */
  async subtreeTotals(taskId: string): Promise<UsageTotals> {
    const r = await sql<{ tin: number | string | null; tout: number | string | null; cost: number | string | null }>`
      WITH RECURSIVE sub(id) AS (
        SELECT CAST(${taskId} AS TEXT)
        UNION
        SELECT t.id FROM tasks t JOIN sub s ON t.parent_id = s.id
      )
      SELECT sum(usage_tokens_in) AS tin, sum(usage_tokens_out) AS tout, sum(usage_cost) AS cost FROM tasks WHERE id IN (SELECT id FROM sub)`.execute(
      this.ctx().db,
    );
    const row = r.rows[0];
    return { tokens: num(row?.tin) + num(row?.tout), cost: roundCost(num(row?.cost)) };
  }

  /** USE-2: ids of the tasks whose parent is one of these (trashed ones included: their spend counts). */
  async childrenOf(taskIds: readonly string[]): Promise<string[]> {
    if (taskIds.length === 0) return [];
    const rows = await this.ctx()
      .db.selectFrom("tasks")
      .select("id")
      .where("parent_id", "in", [...taskIds])
      .execute();
    return rows.map((r) => r.id);
  }

  /** USE-2: the daily cap a person set (wins over GROVE_DAILY_BUDGET), if one is in force; `{}` = turned off. */
  async dailyBudget(): Promise<{ budget: TaskBudget; setAt: string } | undefined> {
    const r = await this.ctx().db.selectFrom("usage_settings").selectAll().where("key", "=", "daily").executeTakeFirst();
    if (!r) return undefined;
    return {
      budget: { ...(r.budget_cost !== null ? { cost: r.budget_cost } : {}), ...(r.budget_tokens !== null ? { tokens: Number(r.budget_tokens) } : {}) },
      setAt: r.set_at,
    };
  }

  /** USE-2: the person's daily cap (a new version), or `undefined` to fall back to GROVE_DAILY_BUDGET. */
  async setDailyBudget(budget: TaskBudget | undefined, now: string): Promise<void> {
    const db = this.ctx().db;
    if (!budget) {
      await db.deleteFrom("usage_settings").where("key", "=", "daily").execute();
      return;
    }
    const row = { budget_cost: budget.cost ?? null, budget_tokens: budget.tokens ?? null, set_at: now };
    await db
      .insertInto("usage_settings")
      .values({ key: "daily", ...row })
      .onConflict((oc) => oc.column("key").doUpdateSet(row))
      .execute();
  }

  /** USE-2: the totals of one UTC day over every runner. */
  async dayTotals(day: string): Promise<UsageTotals> {
    const r = await this.ctx().db.selectFrom("usage_days").select(["tokens", "cost"]).where("day", "=", day).executeTakeFirst();
    return { tokens: num(r?.tokens), cost: roundCost(num(r?.cost)) };
  }

  /** USE-2: replaces the task's budget (none = no limit), a new version; pending continue-once grants go. */
  async setBudget(taskId: string, budget: TaskBudget, now: string): Promise<boolean> {
    const r = await this.ctx()
      .db.updateTable("tasks")
      .set({ budget_cost: budget.cost ?? null, budget_tokens: budget.tokens ?? null, budget_set_at: now, budget_continue: 0, updated_at: now })
      .where("id", "=", taskId)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  /** USE-2: a person lets exactly one more turn of the task run past its budget (grants do not pile up). */
  async grantContinue(taskId: string, now: string): Promise<boolean> {
    const r = await this.ctx().db.updateTable("tasks").set({ budget_continue: 1, updated_at: now }).where("id", "=", taskId).executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  /** USE-2 compare-and-set: takes one continue-once grant; false when none is left (another prompt took it). */
  async takeContinue(taskId: string): Promise<boolean> {
    const r = await this.ctx()
      .db.updateTable("tasks")
      .set({ budget_continue: sql<number>`budget_continue - 1` })
      .where("id", "=", taskId)
      .where("budget_continue", ">", 0)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  /** USE-2: gives a taken grant back (the prompt it was taken for did not start). */
  async returnContinue(taskId: string): Promise<void> {
    await this.ctx().db.updateTable("tasks").set({ budget_continue: 1 }).where("id", "=", taskId).execute();
  }

  /**
   * USE-1 `GET /usage`: the ledger summed per key, keys ascending, one keyset page (`after` the
   * last key of the previous page). `taskIds` limits it to those tasks; `from`/`to` are UTC days.
   */
  async rollup(q: {
    groupBy: UsageGroupBy;
    from?: string | undefined;
    to?: string | undefined;
    taskIds?: readonly string[] | undefined;
    after?: string | undefined;
    limit: number;
  }): Promise<{ rows: UsageRow[]; more: boolean }> {
    const col = GROUP_COLUMN[q.groupBy];
    const db: Db = this.ctx().db;
    let query = db
      .selectFrom("usage_records")
      .select((eb) => [
        sql<string | null>`${sql.ref(col)}`.as("key"),
        eb.fn.sum<number | string>("tokens_in").as("tin"),
        eb.fn.sum<number | string>("tokens_out").as("tout"),
        eb.fn.sum<number | string>("cache_read").as("cr"),
        eb.fn.sum<number | string>("cache_write").as("cw"),
        eb.fn.sum<number>("cost").as("cost"),
        eb.fn.min<string>("currency").as("cmin"),
        eb.fn.max<string>("currency").as("cmax"),
        eb.fn.max<number>("estimated").as("est"),
      ])
      .groupBy(sql.ref(col));
    if (q.from) query = query.where("day", ">=", q.from);
    if (q.to) query = query.where("day", "<=", q.to);
    if (q.taskIds) query = q.taskIds.length === 0 ? query.where(sql<boolean>`1 = 0`) : query.where("task_id", "in", [...q.taskIds]);
    // A task without a repository groups under "" (sorted first), never as a null key.
    if (q.after !== undefined) query = query.where(sql<string>`coalesce(${sql.ref(col)}, '')`, ">", q.after);
    const rows = await query
      .orderBy(sql`coalesce(${sql.ref(col)}, '')`)
      .limit(q.limit + 1)
      .execute();
    return {
      more: rows.length > q.limit,
      rows: rows.slice(0, q.limit).map((r) => ({
        key: r.key ?? "",
        tokensIn: num(r.tin),
        tokensOut: num(r.tout),
        cacheRead: num(r.cr),
        cacheWrite: num(r.cw),
        cost: roundCost(num(r.cost)),
        currency: r.cmin === r.cmax ? (r.cmin ?? "USD") : "mixed",
        estimated: num(r.est) > 0,
      })),
    };
  }
}
