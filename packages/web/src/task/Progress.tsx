/**
 * MCP-2: what the task's agent last reported with `report_progress`: its status line and plan
 * items with their status. Live: `task.updated` frames carry the newest report (live/cache.ts).
 */
import type { TaskProgress } from "@grove/protocol";
import { when } from "../ui/Field.js";
import { planDoneWords } from "../ui/words.js";
import { PlanEntries } from "./PlanEntries.js";

export function Progress({ progress }: { progress: TaskProgress }) {
  const plan = progress.plan ?? [];
  return (
    <section className="card progress" aria-labelledby="progress-heading" id="task-progress">
      <h2 id="progress-heading">Progress</h2>
      <p className="progress-status" id="progress-status">
        {progress.status}
      </p>
      {plan.length > 0 ? (
        <>
          <p className="muted" id="progress-count">
            {planDoneWords(plan)}
          </p>
          <PlanEntries plan={plan} />
        </>
      ) : null}
      <p className="muted">reported {when(progress.updatedAt)}</p>
    </section>
  );
}
