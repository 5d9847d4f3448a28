import { CLEANUP_BACKOFF_MS, type CleanupJobRecord, cleanupBackoffMs } from "../domain/cleanup-job.js";
import { taskView } from "../domain/views.js";
import { publishJob } from "./cleanup-events.js";
import { executeCleanup } from "./cleanup-run.js";
import type { Deps } from "./context.js";
import { faultPoint } from "./lifecycle-fault.js";

const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Runs this runner's due cleanup jobs (LC-2 … LC-4). Idle costs nothing: no polling loop and
 * no process; one unref'd timer is armed for the earliest `nextRunAt`, re-armed after every
 * run, and a new job kicks the worker directly. Exactly one process runs a job: the claim is a
 * compare-and-set in the database (ST-3). Runs are serialized within the process.
 */
export class CleanupWorker {
  /** Milliseconds since the epoch; injectable so backoff can be tested without waiting. */
  clock: () => number;
  private timer: NodeJS.Timeout | undefined;
  private chain: Promise<unknown> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly deps: Deps,
    private readonly opts: { backoffMs?: readonly number[] } = {},
  ) {
    this.clock = () => Date.parse(deps.now());
  }

  /** Arms the timer for jobs already due or waiting (after start-up recovery). */
  start(): void {
    this.kick();
  }

  /** Runs due jobs soon, in the background. */
  kick(): void {
    if (!this.stopped) void this.runDue().catch((e: unknown) => this.deps.log.error({ err: e }, "cleanup worker run failed"));
  }

  /** Claims and runs every job due now; resolves with how many attempts ran. */
  runDue(): Promise<number> {
    const run = this.chain.then(() => this.drain());
    this.chain = run.catch(() => undefined);
    return run;
  }

  /** Stops arming timers and waits (bounded) for the attempt in progress. */
  async stop(waitMs = 5000): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await Promise.race([this.chain, new Promise((r) => setTimeout(r, waitMs).unref())]);
  }

  private nowIso(): string {
    return new Date(this.clock()).toISOString();
  }

  private async drain(): Promise<number> {
    let ran = 0;
    for (;;) {
      if (this.stopped) return ran;
      const ids = await this.deps.store.dueCleanupJobIds(this.deps.runnerId, this.nowIso());
      let claimed = 0;
      for (const id of ids) {
        const job = await this.deps.store.claimCleanupJob(id, this.deps.runnerId, this.nowIso());
        if (!job) continue; // another process (or an unarchive) won
        claimed += 1;
        await this.attempt(job);
      }
      ran += claimed;
      if (claimed === 0) break;
    }
    await this.arm();
    return ran;
  }

  private async attempt(job: CleanupJobRecord): Promise<void> {
    const { deps } = this;
    publishJob(deps, job);
    await faultPoint("cleanup.after_claim");
    let done: CleanupJobRecord | undefined;
    try {
      await executeCleanup(deps, job);
      done = await deps.store.finishCleanupAttempt(job.id, { state: "succeeded" }, deps.now());
    } catch (e) {
      const error = e instanceof Error ? e.message : String(e);
      const last = job.attempts >= job.maxAttempts;
      deps.log.warn({ jobId: job.id, taskId: job.taskId, attempt: job.attempts, err: e }, last ? "cleanup job failed for good" : "cleanup attempt failed; will retry");
      const outcome = last
        ? ({ state: "failed", error } as const)
        : ({ state: "retry_wait", error, nextRunAt: new Date(this.clock() + cleanupBackoffMs(job.attempts, this.opts.backoffMs ?? CLEANUP_BACKOFF_MS)).toISOString() } as const);
      done = await deps.store.finishCleanupAttempt(job.id, outcome, deps.now());
    }
    publishJob(deps, done);
    if (done?.state === "succeeded" && job.trigger === "archive") {
      const task = await deps.store.getTask(job.taskId);
      if (task) deps.bus.publish("task.updated", { task: taskView(task) });
    }
  }

  /** One timer for the earliest waiting job of this runner; none when there is none. */
  private async arm(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.stopped) return;
    const at = await this.deps.store.nextCleanupDueAt(this.deps.runnerId);
    if (at === null) return;
    const delay = Math.min(Math.max(0, Date.parse(at) - this.clock()), MAX_TIMER_MS);
    this.timer = setTimeout(() => this.kick(), delay);
    this.timer.unref();
  }
}
