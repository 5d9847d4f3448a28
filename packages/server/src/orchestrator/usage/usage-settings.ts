import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { TaskBudget } from "@grove/protocol";
import { DEFAULT_PRICES, parseBudgetAmount, parsePriceTable, type PriceTable, type UsageSettings } from "../../domain/usage.js";

/**
 * `GROVE_DAILY_BUDGET` (checked by config-schema.ts) is `<amount>[usd|tokens]`, or both joined by a comma (`20usd,5000000tokens`);
 * `GROVE_HOME/prices.json` is `{"<model or prefix*>": {input, output, cacheRead?, cacheWrite?}}` in
 * USD per million tokens. Either one malformed stops the server with a message naming it.
 */
export function usageSettingsFrom(dailyBudget: string | undefined, home: string): UsageSettings {
  return { ...dailyCapFrom(dailyBudget), prices: pricesFrom(home) };
}

function dailyCapFrom(raw: string | undefined): { dailyCap?: TaskBudget } {
  if (raw === undefined || raw.trim() === "") return {};
  const cap: TaskBudget = {};
  for (const part of raw.split(",")) {
    const b = parseBudgetAmount(part);
    if (!b) throw new Error(`GROVE_DAILY_BUDGET must be <amount>[usd|tokens] (or both, comma-separated), not ${JSON.stringify(raw)}`);
    Object.assign(cap, b);
  }
  return { dailyCap: cap };
}

function pricesFrom(home: string): PriceTable {
  const file = join(home, "prices.json");
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return DEFAULT_PRICES;
  }
  try {
    return { ...DEFAULT_PRICES, ...parsePriceTable(JSON.parse(text)) };
  } catch (e) {
    throw new Error(`${file}: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
}
