/** An agent's plan, one entry a line with its status: the session's plan (ACP `plan`) and a task's reported progress (MCP `report_progress`). */
import { planStatusWords } from "../ui/words.js";

export function PlanEntries({ plan }: { plan: readonly { content: string; status: string }[] }) {
  return (
    <ol className="plan-entries">
      {plan.map((p, i) => (
        <li key={i} data-status={p.status} className={`plan-entry status-${p.status}`}>
          <span className={`badge plan-status status-${p.status}`}>{planStatusWords(p.status)}</span> {p.content}
        </li>
      ))}
    </ol>
  );
}
