import type { Command } from "commander";
import type { DailyBudget, UsageQuery, UsageReport, UsageRow } from "@grove/protocol";
import type { QueryOf } from "@grove/protocol/client";
import { CliError } from "../client.js";
import { contextOf, withCommonOptions } from "../context.js";
import { formatTable } from "../output.js";

const BY: Record<string, string> = { task: "task", repo: "repository", repository: "repository", agent: "agent", runner: "runner", day: "day" };

/**
 * USE-1 `grove usage [--by task|repo|agent|runner|day] [--from D] [--to D] [--task ID]`: the
 * server's roll-up (`GET /usage`, every page), one row per key with tokens and cost; an
 * estimated cost (priced from the table, the agent reported none) is marked `~`. `--json`
 * prints the rows as the API returns them.
 */
export function registerUsageCommand(program: Command): void {
  const usage = program.command("usage");
  withCommonOptions(
    usage
      .description("tokens and cost per task, repository, agent, runner or day, over every runner")
      .option("--by <key>", "task (default), repo, agent, runner or day", "task")
      .option("--from <day>", "first UTC day (YYYY-MM-DD)")
      .option("--to <day>", "last UTC day (YYYY-MM-DD)")
      .option("--task <taskId>", "only this task and its subtasks"),
  ).action(async (opts: { by: string; from?: string; to?: string; task?: string }, cmd: Command) => {
    const groupBy = BY[opts.by];
    if (!groupBy) throw new CliError("invalid_arguments", `--by must be task, repo, agent, runner or day, got "${opts.by}"`);
    const { client, out } = contextOf(cmd);
    const rows: UsageRow[] = [];
    let cursor: string | null = null;
    do {
      const query: QueryOf<"getUsage"> = { groupBy: groupBy as UsageQuery["groupBy"], limit: 500 };
      if (opts.from) query.from = opts.from;
      if (opts.to) query.to = opts.to;
      if (opts.task) query.taskId = opts.task;
      if (cursor) query.cursor = cursor;
      const page: UsageReport = await client.call("getUsage", { query });
      rows.push(...page.rows);
      cursor = page.nextCursor;
    } while (cursor);
    out.result(rows, () => renderUsage(rows, groupBy));
  });
  registerDailyBudgetCommand(usage);
}

/**
 * USE-2 `grove usage budget [<amount>[usd|tokens]… | none] [--reset]`: shows the global daily cap
 * (and today's spend), or sets it on every runner at once, no restart; `none` turns it off,
 * `--reset` goes back to GROVE_DAILY_BUDGET.
 */
function registerDailyBudgetCommand(usage: Command): void {
  withCommonOptions(
    usage
      .command("budget [amounts...]")
      .description("show or set the daily cap over every runner: 20usd, 5000000tokens, both, none")
      .option("--reset", "drop the cap set here: GROVE_DAILY_BUDGET applies again"),
  ).action(async (amounts: string[], opts: { reset?: boolean }, cmd: Command) => {
    const { client, out } = contextOf(cmd);
    if (opts.reset && amounts.length > 0) throw new CliError("invalid_arguments", "--reset takes no amount");
    const b = opts.reset
      ? await client.call("resetDailyBudget")
      : amounts.length > 0
        ? await client.call("putDailyBudget", { body: budgetBody(amounts, false) })
        : await client.call("getDailyBudget");
    out.result(b, () => [renderDailyBudget(b)]);
  });
}

export function renderDailyBudget(b: DailyBudget): string {
  const from = b.source === "person" ? "set here" : b.source === "config" ? "GROVE_DAILY_BUDGET" : "";
  const cap = b.budget.cost !== undefined || b.budget.tokens !== undefined ? `${describeBudget(b.budget)} (${from})` : `none${from ? ` (${from})` : ""}`;
  return `daily cap: ${cap}; spent ${b.day}: ${b.used.cost.toFixed(4)} USD, ${b.used.tokens} tokens`;
}

/** One line per key and a total line; `~` marks a cost computed from the price table. */
export function renderUsage(rows: readonly UsageRow[], groupBy: string): string[] {
  if (rows.length === 0) return ["no usage recorded"];
  const cost = (c: number, est: boolean, currency: string) => `${est ? "~" : ""}${c.toFixed(4)} ${currency}`;
  const body = rows.map((r) => [
    r.label ? `${r.label} (${r.key})` : r.key || "(none)",
    String(r.tokensIn),
    String(r.tokensOut),
    cost(r.cost, r.estimated, r.currency),
  ]);
  const total = rows.reduce((a, r) => ({ tin: a.tin + r.tokensIn, tout: a.tout + r.tokensOut, cost: a.cost + r.cost, est: a.est || r.estimated }), {
    tin: 0,
    tout: 0,
    cost: 0,
    est: false,
  });
  const currencies = new Set(rows.map((r) => r.currency));
  body.push(["total", String(total.tin), String(total.tout), cost(total.cost, total.est, currencies.size === 1 ? [...currencies][0]! : "mixed")]);
  return formatTable(body, [groupBy.toUpperCase(), "TOKENS IN", "TOKENS OUT", "COST"]);
}

/**
 * USE-2 `grove task budget <taskId> <amount>[usd|tokens]…` sets the task's budget (one or both
 * limits; `none` removes it); `--continue-once` lets exactly one more turn run past whichever
 * budget stops the task: its own, a parent's, its workflow's, its agent's or the daily cap (the
 * server's gate spends the grant on any of them, so the words do not say "its budget").
 */
export function registerTaskBudgetCommand(task: Command): void {
  withCommonOptions(
    task
      .command("budget <taskId> [amounts...]")
      .description("set a task's budget: 5usd, 200000tokens, both, or none; subtasks inherit it")
      .option("--continue-once", "let exactly one more turn run past the budget or daily cap that stops the task"),
  ).action(async (taskId: string, amounts: string[], opts: { continueOnce?: boolean }, cmd: Command) => {
    const body = budgetBody(amounts, opts.continueOnce === true);
    const { client, out } = contextOf(cmd);
    const t = await client.call("putTaskBudget", { params: { id: taskId }, body });
    out.result(t, () => [
      opts.continueOnce
        ? `task ${t.id}: one more turn may run past the budget or daily cap that stops it`
        : t.budget
          ? `task ${t.id} budget: ${describeBudget(t.budget)}`
          : `task ${t.id}: no budget`,
    ]);
  });
}

/** The request body of `task budget`: usage errors are the CLI's own. */
export function budgetBody(amounts: readonly string[], continueOnce: boolean): { cost?: number; tokens?: number; continueOnce?: true } {
  if (continueOnce) {
    if (amounts.length > 0) throw new CliError("invalid_arguments", "--continue-once takes no amount");
    return { continueOnce: true };
  }
  if (amounts.length === 0) throw new CliError("invalid_arguments", "give an amount: 5usd, 200000tokens, both, or none");
  if (amounts.length === 1 && amounts[0] === "none") return {};
  const body: { cost?: number; tokens?: number } = {};
  for (const a of amounts) {
    const m = /^(\d+(?:\.\d+)?)(usd|tokens)?$/i.exec(a.trim());
    if (!m || !(Number(m[1]) > 0)) throw new CliError("invalid_arguments", `an amount is <number>[usd|tokens], got "${a}"`);
    if (m[2]?.toLowerCase() === "tokens") {
      if (!Number.isInteger(Number(m[1]))) throw new CliError("invalid_arguments", `tokens are a whole number, got "${a}"`);
      body.tokens = Number(m[1]);
    } else body.cost = Number(m[1]);
  }
  return body;
}

function describeBudget(b: { cost?: number; tokens?: number }): string {
  return [b.cost !== undefined ? `${b.cost} USD` : "", b.tokens !== undefined ? `${b.tokens} tokens` : ""].filter(Boolean).join(", ");
}
