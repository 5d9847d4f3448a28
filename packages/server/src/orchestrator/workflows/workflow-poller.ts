import type { WorkflowRecord } from "../../domain/workflow.js";
import type { Deps } from "../context.js";
import type { RunQueue } from "./workflow-run-queue.js";

/** How a trigger queues a run: the engine's exactly-once insert (the run's unique key is the claim). */
export type Enqueue = RunQueue["enqueue"];

/** What one look found: whether it queued a run (the engine is kicked) and when to look again (ms). */
export interface Look {
  queued: boolean;
  wake: number;
}

/**
 * WF-2 triggers that watch the clock or a provider (schedules, issues, archiving, review
 * comments, a moved base): one look at a time, chained so two callers never look at once; a
 * look that queued runs kicks the engine, which claims and executes them by compare-and-set;
 * then one timer is armed for the look's wake. A failed look is logged and the next one still
 * comes when asked. Stopping waits for the look in progress and arms nothing more.
 */
export abstract class WorkflowPoller<D extends Pick<Deps, "log" | "now">> {
  private timer: NodeJS.Timeout | undefined;
  private wakeAt: number | undefined;
  private stopped = false;
  private looking: Promise<void> = Promise.resolve();

  constructor(
    protected readonly deps: D,
    protected readonly enqueue: Enqueue,
    private readonly queued: () => void,
    /** The log line of a failed look ("workflow: the … failed"). */
    private readonly failure: string,
  ) {}

  /** Looks at the workflows (and what they watch) as of `now`; `force` looks past every interval. */
  protected abstract look(now: number, force: boolean): Promise<Look>;

  start(): void {
    this.stopped = false;
    void this.poll();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.disarm();
    await this.looking;
  }

  /** When the next look is due (ISO), once a look armed it: for status and for tests that move the clock. */
  nextCheckAt(): string | undefined {
    return this.wakeAt === undefined ? undefined : new Date(this.wakeAt).toISOString();
  }

  /** Looks now (all workflows with `force`: one was stored), then re-arms. One look at a time. */
  poll(force = false): Promise<void> {
    this.looking = this.looking.then(() => this.pollOnce(force)).catch((err: unknown) => this.deps.log.error({ err }, this.failure));
    return this.looking;
  }

  /** One item of a look (a task, a pull request, a workflow) that failed is logged and queued nothing; the others go on. */
  protected async guarded(item: () => Promise<boolean>, context: object, message: string): Promise<boolean> {
    return item().catch((err: unknown) => {
      this.deps.log.warn({ err, ...context }, message);
      return false;
    });
  }

  private disarm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.wakeAt = undefined;
  }

  private async pollOnce(force: boolean): Promise<void> {
    if (this.stopped) return;
    this.disarm();
    const { queued, wake } = await this.look(Date.parse(this.deps.now()), force);
    if (queued) this.queued();
    if (this.stopped) return;
    this.wakeAt = wake;
    // From the clock as it is now: the look's own time (or a clock that jumped meanwhile) must not push the wake back.
    this.timer = setTimeout(() => void this.poll(), Math.max(10, wake - Date.parse(this.deps.now())));
    this.timer.unref();
  }
}

/**
 * WF-2 poll intervals of one trigger kind, on this process's clock: each workflow with the
 * trigger (and not stopped) is due once its `pollSeconds` passed since its last poll here.
 */
export class PollIntervals {
  private readonly polledAt = new Map<string, number>();

  constructor(
    /** The workflow's trigger interval in seconds; undefined when it has no such trigger. */
    private readonly pollSecondsOf: (w: WorkflowRecord) => number | undefined,
  ) {}

  /** The workflows due now (every one with `force`), marked polled; `wake` lowered to the next one's due time. */
  due(workflows: WorkflowRecord[], now: number, force: boolean, wake: number): { due: WorkflowRecord[]; wake: number } {
    const due: WorkflowRecord[] = [];
    for (const w of workflows) {
      const seconds = this.pollSecondsOf(w);
      if (seconds === undefined || w.stopped) continue;
      const every = seconds * 1000;
      const last = this.polledAt.get(w.name);
      if (force || last === undefined || now - last >= every) {
        this.polledAt.set(w.name, now);
        due.push(w);
        wake = Math.min(wake, now + every);
      } else wake = Math.min(wake, last + every);
    }
    return { due, wake };
  }
}
