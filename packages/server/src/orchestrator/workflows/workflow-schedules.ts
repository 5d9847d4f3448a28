import { newId } from "../../domain/ids.js";
import { type WorkflowRecord, renderTemplate } from "../../domain/workflow.js";
import { dueTick, nextTick, tickFields } from "../../domain/workflow-schedule.js";
import type { WorkflowRunRecord } from "../../domain/workflow-run.js";
import type { Deps } from "../context.js";

type Enqueue = (
  r: Pick<WorkflowRunRecord, "idemKey" | "taskId" | "entryId" | "workflow" | "version" | "step" | "actionIndex" | "cause"> & {
    action: WorkflowRunRecord["action"];
  },
) => Promise<WorkflowRunRecord | undefined>;

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
export class WorkflowSchedules {
  private timer: NodeJS.Timeout | undefined;
  private wakeAt: number | undefined;
  private stopped = false;
  private checking: Promise<void> = Promise.resolve();

  constructor(
    private readonly deps: Pick<Deps, "store" | "log" | "now">,
    private readonly enqueue: Enqueue,
    private readonly queued: () => void,
  ) {}

  start(): void {
    this.stopped = false;
    void this.check();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.wakeAt = undefined;
    await this.checking;
  }

  /** When the next check is due (ISO), once a check has armed it: for status and for tests that move the clock. */
  nextCheckAt(): string | undefined {
    return this.wakeAt === undefined ? undefined : new Date(this.wakeAt).toISOString();
  }

  /** Checks now (a workflow was stored) and re-arms the timer for the next tick. One check at a time. */
  check(): Promise<void> {
    this.checking = this.checking.then(() => this.checkOnce()).catch((err: unknown) => this.deps.log.error({ err }, "workflow: the schedule check failed"));
    return this.checking;
  }

  private async checkOnce(): Promise<void> {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.wakeAt = undefined;
    const now = Date.parse(this.deps.now());
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
    if (queued) this.queued();
    if (this.stopped) return;
    this.wakeAt = wake;
    this.timer = setTimeout(() => void this.check(), Math.max(10, wake - now));
    this.timer.unref();
  }
}
