import type { Command } from "commander";
import type { AgentBudget, AgentProfile, PutDailyBudgetBody } from "@grove/protocol";
import { checkArguments, failOnProblems } from "../arguments.js";
import { CliError } from "../client.js";
import { contextOf, withCommonOptions } from "../context.js";

interface AgentBudgetOptions {
  usd?: string;
  tokens?: string;
  clear?: boolean;
}

const USD = /^\d+(?:\.\d+)?$/;
const WHOLE = /^\d+$/;

/**
 * The body of `agents budget`, or `clear`, or undefined to only show the cap. Every problem of
 * the command line is reported at once (CLI-19), before any request: nothing is written.
 */
export function agentBudgetBody(amounts: readonly string[], opts: AgentBudgetOptions): PutDailyBudgetBody | "clear" | undefined {
  const check = checkArguments([]);
  const body: { cost?: number; tokens?: number } = {};
  const take = (limit: "cost" | "tokens", value: number, said: string) => {
    if (body[limit] !== undefined) check.invalid.push(`the ${limit === "cost" ? "USD" : "token"} cap is given twice (${said})`);
    else body[limit] = value;
  };
  if (opts.usd !== undefined) {
    if (USD.test(opts.usd.trim()) && Number(opts.usd) > 0) take("cost", Number(opts.usd), `--usd ${opts.usd}`);
    else check.invalid.push(`--usd must be a positive amount in USD, got "${opts.usd}"`);
  }
  if (opts.tokens !== undefined) {
    if (WHOLE.test(opts.tokens.trim()) && Number(opts.tokens) > 0) take("tokens", Number(opts.tokens), `--tokens ${opts.tokens}`);
    else check.invalid.push(`--tokens must be a positive whole number, got "${opts.tokens}"`);
  }
  const none = amounts.length === 1 && amounts[0]!.trim().toLowerCase() === "none";
  for (const a of none ? [] : amounts) {
    const m = /^(\d+(?:\.\d+)?)(usd|tokens)?$/i.exec(a.trim());
    const n = Number(m?.[1]);
    if (!m || !(n > 0)) check.invalid.push(`an amount is <number>usd or <whole number>tokens, got "${a}"`);
    else if (m[2]?.toLowerCase() === "tokens") {
      if (Number.isInteger(n)) take("tokens", n, a);
      else check.invalid.push(`tokens are a whole number, got "${a}"`);
    } else take("cost", n, a);
  }
  const setting = opts.usd !== undefined || opts.tokens !== undefined || (amounts.length > 0 && !none);
  if ((opts.clear || none) && setting) check.invalid.push(`${opts.clear ? "--clear" : "none"} takes no amount: clear the cap or set it, not both`);
  failOnProblems(check);
  if (opts.clear || none) return "clear";
  return setting ? body : undefined;
}

/** `5 USD, 200000 tokens` (or `none`) and today's spend of the profile's sessions. */
export function describeAgentBudget(name: string, b: AgentBudget | undefined): string {
  const cap = b ? budgetWords(b.budget) : "";
  const spent = b ? `; spent ${b.day}: ${b.used.cost.toFixed(4)} USD, ${b.used.tokens} tokens` : "";
  return `agent ${name} daily cap: ${cap || "none"}${spent}`;
}

/** The limits of a cap in words; empty without one. */
export function budgetWords(b: { cost?: number; tokens?: number }): string {
  return [b.cost !== undefined ? `${b.cost} USD` : "", b.tokens !== undefined ? `${b.tokens} tokens` : ""].filter(Boolean).join(", ");
}

/**
 * USE-2 `grove agents budget <name> [<amount>usd] [<n>tokens] [--usd N] [--tokens N] [--clear | none]`:
 * shows an agent profile's daily cap over every runner, sets it (`PUT /agents/:name/budget`, in
 * force at once) or removes it (`DELETE`). The amounts read as `task budget`'s and `usage budget`'s.
 */
export function registerAgentBudgetCommand(agents: Command): void {
  withCommonOptions(
    agents
      .command("budget <name> [amounts...]")
      .description("show or set an agent profile's daily cap over every runner: 5usd, 200000tokens, both, or none")
      .option("--usd <amount>", "cap the profile's spend per UTC day at this many USD")
      .option("--tokens <n>", "cap the profile's tokens (in + out) per UTC day")
      .option("--clear", "remove the profile's daily cap"),
  ).action(async (name: string, amounts: string[], opts: AgentBudgetOptions, cmd: Command) => {
    const body = agentBudgetBody(amounts, opts);
    const { client, out } = contextOf(cmd);
    let profile: AgentProfile;
    if (body === undefined) {
      const list = await client.call("listAgentProfiles");
      const found = list.find((a) => a.name === name);
      if (!found) throw new CliError("not_found", `no agent profile named "${name}" (known: ${list.map((a) => a.name).join(", ")})`, { details: { name } });
      profile = found;
    } else if (body === "clear") profile = await client.call("resetAgentBudget", { params: { name } });
    else profile = await client.call("putAgentBudget", { params: { name }, body });
    out.result(profile, () => [describeAgentBudget(profile.name, profile.budget)]);
  });
}
