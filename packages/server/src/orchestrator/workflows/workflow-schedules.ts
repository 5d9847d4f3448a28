import { newId } from "../../domain/ids.js";
import { type WorkflowRecord, renderTemplate } from "../../domain/workflow.js";
import { dueTick, nextTick, tickFields } from "../../domain/workflow-schedule.js";
import type { Deps } from "../context.js";
import { type Enqueue, type Look, WorkflowPoller } from "./workflow-poller.js";

/** The cause of a schedule's runs. */
export const SCHEDULE_CAUSE = "schedule";

/** The longest sleep between two checks: a workflow stored or changed meanwhile is noticed by then. */
const MAX_SLEEP_MS = 60_000;

/** The idempotency key of one tick (WF-2): the workflow, its version and the scheduled instant. */
export function scheduleKey(w: Pick<WorkflowRecord, "name" | "version">, tick: Date): string {
  return `schedule:${w.name}:${w.version}:${tick.toISOString()}`;
}

/**
 * WF-2 schedules: each workflow with a `schedule` trigger creates one task per tick. A check
 * queues the due tick's run under the key (workflow, version, instant): the unique key is the
 * claim, so two runners (or a restart) that see the same tick queue one run and one task. The
 * run carries the task's planned id and rendered title; the engine claims and executes it.
 * Ticks count from the workflow's last change (stored, or its stop switch turned), and only
 * the newest due tick fires: missed ticks collapse into one catch-up.
 */
export class WorkflowSchedules extends WorkflowPoller<Pick<Deps, "store" | "log" | "now">> {
  constructor(deps: Pick<Deps, "store" | "log" | "now">, enqueue: Enqueue, queued: () => void) {
    super(deps, enqueue, queued, "workflow: the schedule check failed");
  }

  /** Checks now (a workflow was stored) and re-arms the timer for the next tick. One check at a time. */
  check(): Promise<void> {
    return this.poll();
  }

  protected async look(now: number): Promise<Look> {
    let wake = now + MAX_SLEEP_MS;
    let queued = false;
    for (const w of await this.deps.store.workflows.list()) {
      const s = w.definition.triggers.schedule;
      if (!s || w.stopped) continue;
      const tick = dueTick(s, Date.parse(w.updatedAt), now);
      if (tick) {
        const fields = tickFields(tick, s.timeZone);
        const run = await this.enqueue({
          idemKey: scheduleKey(w, tick),
          taskId: newId("task"),
          entryId: null,
          workflow: w.name,
          version: w.version,
          step: s.step,
          actionIndex: 0,
          action: {
            action: "create_task",
            title: renderTemplate(s.title, fields),
            brief: s.brief ? renderTemplate(s.brief, fields) : "",
            repositoryId: s.repositoryId,
            step: s.step,
          },
          cause: SCHEDULE_CAUSE,
        });
        queued ||= run !== undefined;
      }
      const next = nextTick(s, now);
      if (next) wake = Math.min(wake, next.getTime());
    }
    return { queued, wake };
  }
}
