/**
 * USE-2: an agent profile's daily cap on the Settings page — the cap in force and what the
 * profile's sessions spent today over every runner — and the person's controls to set it or turn
 * it off (`PUT`/`DELETE /agents/:name/budget`), in force at once on every runner.
 */
import type { AgentProfile } from "@grove/protocol";
import { useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { keys } from "../api/keys.js";
import { ErrorBox } from "../ui/ErrorBox.js";
import { Field } from "../ui/Field.js";
import { useAction } from "../ui/use-action.js";
import { formatCost } from "../usage/UsageBadge.js";
import { putAgentBudget, resetAgentBudget } from "./settings-api.js";

function describeCap(b: NonNullable<AgentProfile["budget"]>): string {
  const parts = [b.budget.cost !== undefined ? formatCost(b.budget.cost, false) : "", b.budget.tokens !== undefined ? `${b.budget.tokens} tokens` : ""].filter(
    Boolean,
  );
  return parts.length === 0 ? "none" : `${parts.join(" and ")} per day`;
}

export function AgentBudget({ profile }: { profile: AgentProfile }) {
  const qc = useQueryClient();
  const action = useAction();
  const [cost, setCost] = useState("");
  const apply = async (fn: () => Promise<AgentProfile>) => {
    const next = await action.run(fn);
    if (next) {
      qc.setQueryData<AgentProfile[]>(keys.agents, (list) => list?.map((p) => (p.name === next.name ? { ...p, ...next } : p)));
      setCost("");
    }
  };
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    void apply(() => putAgentBudget(profile.name, { cost: Number(cost) }));
  };
  const b = profile.budget;
  const valid = cost.trim() !== "" && Number(cost) > 0;
  const capped = b !== undefined && (b.budget.cost !== undefined || b.budget.tokens !== undefined);
  return (
    <form className="agent-budget" aria-label={`${profile.name} daily cap`} onSubmit={onSubmit}>
      {b ? (
        <p className="agent-budget-state">
          Daily cap <span data-cap="">{describeCap(b)}</span> · spent today <span data-spent="">{formatCost(b.used.cost, false)}</span>
        </p>
      ) : null}
      <Field label={`Daily cap for ${profile.name} (USD)`}>
        <input type="number" min="0.01" step="0.01" inputMode="decimal" value={cost} onChange={(e) => setCost(e.target.value)} />
      </Field>
      <div className="actions">
        <button type="submit" className="secondary" disabled={!valid || action.busy}>
          {`Set cap for ${profile.name}`}
        </button>
        {capped ? (
          <button type="button" className="secondary" disabled={action.busy} onClick={() => void apply(() => resetAgentBudget(profile.name))}>
            {`No cap for ${profile.name}`}
          </button>
        ) : null}
      </div>
      <ErrorBox error={action.error} context={`Could not change ${profile.name}'s daily cap`} />
    </form>
  );
}
