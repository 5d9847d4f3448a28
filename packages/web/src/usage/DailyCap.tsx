/**
 * USE-2: the global daily cap over every runner, on the Usage page — what is in force, where it
 * comes from, today's spend — and the person's controls to raise it, turn it off, or go back to
 * GROVE_DAILY_BUDGET, in force at once without a restart (`PUT`/`DELETE /usage/daily-budget`).
 */
import type { DailyBudget } from "@grove/protocol";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { call } from "../api/client.js";
import { ErrorBox } from "../ui/ErrorBox.js";
import { Field } from "../ui/Field.js";
import { useAction } from "../ui/use-action.js";
import { formatCost } from "./UsageBadge.js";

const KEY = ["usage", "daily-budget"];

function describeCap(b: DailyBudget): string {
  const parts = [b.budget.cost !== undefined ? formatCost(b.budget.cost, false) : "", b.budget.tokens !== undefined ? `${b.budget.tokens} tokens` : ""].filter(
    Boolean,
  );
  if (parts.length === 0) return b.source === "person" ? "none (turned off here)" : "none";
  return `${parts.join(" and ")} per day${b.source === "config" ? " (from GROVE_DAILY_BUDGET)" : " (set here)"}`;
}

export function DailyCap() {
  const q = useQuery({ queryKey: KEY, queryFn: () => call("getDailyBudget"), refetchInterval: 15_000 });
  const client = useQueryClient();
  const action = useAction();
  const [cost, setCost] = useState("");
  const apply = async (fn: () => Promise<DailyBudget>) => {
    const b = await action.run(fn);
    if (b) {
      client.setQueryData(KEY, b);
      setCost("");
    }
  };
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    const amount = Number(cost);
    void apply(() => call("putDailyBudget", { body: { cost: amount } }));
  };
  const b = q.data;
  const valid = cost.trim() !== "" && Number(cost) > 0;
  return (
    <section className="daily-cap" aria-label="Daily cap">
      <h2>Daily cap</h2>
      <ErrorBox error={q.error ?? action.error} context="Could not change the daily cap" />
      {b ? (
        <p className="daily-cap-state">
          <span data-cap="">{describeCap(b)}</span> · spent today <span data-spent="">{formatCost(b.used.cost, false)}</span>
        </p>
      ) : null}
      <form className="daily-cap-form" onSubmit={onSubmit}>
        <Field label="New cap (USD per day)">
          <input type="number" min="0.01" step="0.01" inputMode="decimal" value={cost} onChange={(e) => setCost(e.target.value)} />
        </Field>
        <button type="submit" disabled={!valid || action.busy}>
          Set cap
        </button>
        <button type="button" className="secondary" disabled={action.busy} onClick={() => void apply(() => call("putDailyBudget", { body: {} }))}>
          No cap
        </button>
        {b?.source === "person" ? (
          <button type="button" className="secondary" disabled={action.busy} onClick={() => void apply(() => call("resetDailyBudget"))}>
            Back to default
          </button>
        ) : null}
      </form>
      <p className="hint">Every runner applies a change at once, no restart. At 100 % running turns are cancelled and new prompts wait for you.</p>
    </section>
  );
}
