import type { TaskBudget } from "@grove/protocol";

/** USE-1: token counts of one turn (ACP `PromptResponse.usage`, unstable) or of one record. */
export interface TokenCounts {
  tokensIn: number;
  tokensOut: number;
  cacheRead: number;
  cacheWrite: number;
}

export const NO_TOKENS: TokenCounts = { tokensIn: 0, tokensOut: 0, cacheRead: 0, cacheWrite: 0 };

/** USD per million tokens of one model. */
export interface ModelPrice {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
}

/** Model id (or a prefix of one ending in `*`) → price; `default` when no entry matches. */
export type PriceTable = Record<string, ModelPrice>;

/**
 * Shipped defaults (list prices, USD per million tokens, as published by the vendors at the time
 * of writing). `GROVE_HOME/prices.json` overrides entries by key. A cost computed from this table
 * is marked `estimated`: the agent did not report one.
 */
export const DEFAULT_PRICES: PriceTable = {
  "claude-opus*": { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 },
  "claude-sonnet*": { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  "claude-haiku*": { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 },
  "gemini-2.5-pro*": { input: 1.25, output: 10, cacheRead: 0.31 },
  "gemini-2.5-flash*": { input: 0.3, output: 2.5, cacheRead: 0.075 },
  "gpt-5*": { input: 1.25, output: 10, cacheRead: 0.125 },
  default: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
};

/** The price of `model`: an exact key, else the longest matching `prefix*` key, else `default`. */
export function priceOf(table: PriceTable, model: string | undefined): ModelPrice | undefined {
  if (model && table[model]) return table[model];
  let best: { len: number; price: ModelPrice } | undefined;
  for (const [key, price] of Object.entries(table)) {
    if (!key.endsWith("*") || !model) continue;
    const prefix = key.slice(0, -1);
    if (model.startsWith(prefix) && (!best || prefix.length > best.len)) best = { len: prefix.length, price };
  }
  return best?.price ?? table.default;
}

/** USD for these tokens at this model's price (cache tokens at the input price when the table has none). */
export function estimateCost(table: PriceTable, model: string | undefined, t: TokenCounts): number {
  const p = priceOf(table, model);
  if (!p) return 0;
  const usd = (t.tokensIn * p.input + t.tokensOut * p.output + t.cacheRead * (p.cacheRead ?? p.input) + t.cacheWrite * (p.cacheWrite ?? p.input)) / 1_000_000;
  return roundCost(usd);
}

/** Costs are kept to a millionth of the currency unit: sums of many small records stay exact enough and comparable. */
export function roundCost(x: number): number {
  return Math.round(x * 1_000_000) / 1_000_000;
}

/** Validates a parsed prices.json; the error names the first bad entry. */
export function parsePriceTable(raw: unknown): PriceTable {
  if (!raw || typeof raw !== "object" || Array.isArray(raw))
    throw new Error("prices.json must be an object of model → {input, output, cacheRead?, cacheWrite?}");
  const out: PriceTable = {};
  for (const [model, v] of Object.entries(raw as Record<string, unknown>)) {
    const p = v as Record<string, unknown>;
    const num = (k: string, required: boolean): number | undefined => {
      const x = p?.[k];
      if (x === undefined && !required) return undefined;
      if (typeof x !== "number" || !Number.isFinite(x) || x < 0) throw new Error(`prices.json: ${model}.${k} must be a number ≥ 0 (USD per million tokens)`);
      return x;
    };
    const cacheRead = num("cacheRead", false);
    const cacheWrite = num("cacheWrite", false);
    out[model] = {
      input: num("input", true)!,
      output: num("output", true)!,
      ...(cacheRead !== undefined ? { cacheRead } : {}),
      ...(cacheWrite !== undefined ? { cacheWrite } : {}),
    };
  }
  return out;
}

/** Usage totals a budget is measured against. Budget tokens are tokens in + out. */
export interface UsageTotals {
  tokens: number;
  cost: number;
}

/** How far `used` is into `limit`: the larger of the cost and token ratios that are set (0 when neither is). */
export function budgetRatio(limit: TaskBudget, used: UsageTotals): number {
  let r = 0;
  if (limit.cost !== undefined) r = Math.max(r, used.cost / limit.cost);
  if (limit.tokens !== undefined) r = Math.max(r, used.tokens / limit.tokens);
  return r;
}

/** A budget limit written as the CLI and GROVE_DAILY_BUDGET take it: `5`, `5usd`, `2.5USD`, `200000tokens`. */
export function parseBudgetAmount(text: string): TaskBudget | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(usd|tokens)?\s*$/i.exec(text);
  if (!m) return undefined;
  const n = Number(m[1]);
  if (!(n > 0)) return undefined;
  if (m[2]?.toLowerCase() === "tokens") return Number.isInteger(n) ? { tokens: n } : undefined;
  return { cost: n };
}

/** The UTC day of an ISO time (YYYY-MM-DD). */
export function dayOf(iso: string): string {
  return iso.slice(0, 10);
}

/** USE-1/USE-2 settings of a server (built in app.ts from the environment and GROVE_HOME). */
export interface UsageSettings {
  /** `GROVE_DAILY_BUDGET`: the global cap per UTC day over every runner; none when unset. */
  dailyCap?: TaskBudget;
  /** The shipped price table with `GROVE_HOME/prices.json` over it. */
  prices: PriceTable;
}
