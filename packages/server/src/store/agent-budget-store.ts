import type { TaskBudget } from "@grove/protocol";
import { roundCost, type UsageTotals } from "../domain/usage.js";
import type { Db } from "./schema.js";

/** A person's daily cap of one agent profile and its version. */
export interface AgentBudgetRecord {
  name: string;
  budget: TaskBudget;
  setAt: string;
}

const num = (x: number | string | null | undefined): number => (x === null || x === undefined ? 0 : Number(x));

/** USE-2 persistence (migration 032): daily caps per agent profile, and what a profile spent on a UTC day. Reached as `store.agentBudgets`. */
export class AgentBudgetStore {
  constructor(private readonly db: () => Db) {}

  /** Every agent profile's cap in force. */
  async list(): Promise<AgentBudgetRecord[]> {
    const rows = await this.db().selectFrom("agent_budgets").selectAll().orderBy("name").execute();
    return rows.map(recordOf);
  }

  /** The profile's cap, if one is in force. */
  async get(name: string): Promise<AgentBudgetRecord | undefined> {
    const r = await this.db().selectFrom("agent_budgets").selectAll().where("name", "=", name).executeTakeFirst();
    return r ? recordOf(r) : undefined;
  }

  /** Sets the profile's cap (a new version) or, with `undefined`, removes it. */
  async set(name: string, budget: TaskBudget | undefined, now: string): Promise<void> {
    if (!budget) {
      await this.db().deleteFrom("agent_budgets").where("name", "=", name).execute();
      return;
    }
    const row = { budget_cost: budget.cost ?? null, budget_tokens: budget.tokens ?? null, set_at: now };
    await this.db()
      .insertInto("agent_budgets")
      .values({ name, ...row })
      .onConflict((oc) => oc.column("name").doUpdateSet(row))
      .execute();
  }

  /** What the sessions of one agent profile spent on a UTC day over every runner, from the ledger. */
  async dayTotals(agent: string, day: string): Promise<UsageTotals> {
    const r = await this.db()
      .selectFrom("usage_records")
      .select((eb) => [
        eb.fn.sum<number | string>("tokens_in").as("tin"),
        eb.fn.sum<number | string>("tokens_out").as("tout"),
        eb.fn.sum<number>("cost").as("cost"),
      ])
      .where("agent", "=", agent)
      .where("day", "=", day)
      .executeTakeFirst();
    return { tokens: num(r?.tin) + num(r?.tout), cost: roundCost(num(r?.cost)) };
  }
}

function recordOf(r: { name: string; budget_cost: number | null; budget_tokens: number | string | null; set_at: string }): AgentBudgetRecord {
  return {
    name: r.name,
    budget: { ...(r.budget_cost !== null ? { cost: Number(r.budget_cost) } : {}), ...(r.budget_tokens !== null ? { tokens: Number(r.budget_tokens) } : {}) },
    setAt: r.set_at,
  };
}
