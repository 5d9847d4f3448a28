import { CLEANUP_BACKOFF_MS, type CleanupJobRecord, cleanupBackoffMs } from "../../domain/cleanup-job.js";
import { taskView } from "../../domain/views.js";
import { publishJob } from "./cleanup-events.js";
import { executeCleanup } from "./cleanup-run.js";
import { schedulePurges } from "./trash.js";
import type { Deps } from "../context.js";
import { faultPoint } from "../fault-points.js";

const MAX_TIMER_MS = 2 ** 31 - 1;

/** The ports (orchestrator/context.ts) CleanupWorker uses. */
export type CleanupWorkerPorts = Pick<
  Deps,
  "store" | "git" | "worktrees" | "agents" | "bus" | "log" | "home" | "runnerId" | "launches" | "now" | "remote" | "trashRetentionMs"
>;

/**
 * Runs this runner's due cleanup jobs (LC-2 … LC-4). Idle costs nothing: no polling loop and
 * no process; one unref'd timer is armed for the earliest `nextRunAt`, re-armed after every
 * run, and a new job kicks the worker directly. Exactly one process runs a job: the claim is a
 * compare-and-set in the database (ST-3). Runs are serialized within the process.
 */
export class CleanupWorker {
  /** Milliseconds since the epoch; injectable so backoff can be tested without waiting. */
  clock: () => number;
  /**
   * After the worker's own bookkeeping failed (a database error while claiming, recording or
   * arming), it tries again after this long rather than waiting for the next kick or restart.
   */
  retryDelayMs = 30_000;
  private timer: NodeJS.Timeout | undefined;
  private chain: Promise<unknown> = Promise.resolve();
  private stopped = false;
  /** Claimed jobs whose attempt could not be recorded: still `running` in the database. */
  private readonly stranded = new Map<string, { attempt: number; error: string }>();

  constructor(
    private readonly deps: CleanupWorkerPorts,
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

  /**
   * Whatever fails inside, the worker re-arms (finally): a failed run never leaves it idle with
   * due or stranded jobs. A run whose own database calls failed waits `retryDelayMs` before the
   * next one, so a database that stays down is not hammered.
   */
  private async drain(): Promise<number> {
    let ran = 0;
    let healthy = false;
    try {
      await this.requeueStranded();
      for (;;) {
        if (this.stopped) break;
        // LIVE-5: a trashed task whose delete job finished gets its (durable) purge job first.
        await schedulePurges(this.deps).catch((e: unknown) => this.deps.log.warn({ err: e }, "cleanup: purge jobs could not be scheduled yet"));
        const ids = await this.deps.store.dueCleanupJobIds(this.deps.runnerId, this.nowIso());
        let claimed = 0;
        for (const id of ids) {
          const job = await this.deps.store.claimCleanupJob(id, this.deps.runnerId, this.nowIso());
          if (!job) continue; // another process (or an unarchive) won
          claimed += 1;
          try {
            await this.attempt(job);
          } catch (e) {
            // The attempt ran (or not) but its outcome is not recorded: the job is still
            // `running`. Every step is idempotent, so it is made due again (LC-4).
            const error = e instanceof Error ? e.message : String(e);
            this.deps.log.error({ jobId: job.id, taskId: job.taskId, err: e }, "cleanup: the attempt's outcome could not be recorded; the job will run again");
            this.stranded.set(job.id, { attempt: job.attempts, error });
            await this.requeueStranded();
          }
        }
        ran += claimed;
        if (claimed === 0) break;
      }
      healthy = this.stranded.size === 0;
    } finally {
      await this.arm(healthy ? 0 : this.retryDelayMs);
    }
    return ran;
  }

  /**
   * Stranded jobs → `retry_wait` (compare-and-set from `running`, so a write that did land, or
   * a job another path already moved, is left alone). One that still cannot be written stays
   * in memory for the next run; a restart recovers it anyway (LC-4 start-up reconciliation).
   */
  private async requeueStranded(): Promise<void> {
    const { deps } = this;
    for (const [id, s] of [...this.stranded]) {
      try {
        const nextRunAt = new Date(this.clock() + cleanupBackoffMs(s.attempt, this.opts.backoffMs ?? CLEANUP_BACKOFF_MS)).toISOString();
        const error = `the outcome of attempt ${s.attempt} could not be recorded: ${s.error}`;
        const job = await deps.store.finishCleanupAttempt(id, { state: "retry_wait", error, nextRunAt }, deps.now());
        this.stranded.delete(id);
        publishJob(deps, job);
      } catch (e) {
        deps.log.warn({ jobId: id, err: e }, "cleanup: a stranded job could not be requeued yet");
      }
    }
  }

  /** Runs one claimed attempt and records its outcome; throws only when recording fails. */
  private async attempt(job: CleanupJobRecord): Promise<void> {
    const { deps } = this;
    publishJob(deps, job);
    await faultPoint("cleanup.after_claim");
    let outcome: Parameters<Deps["store"]["finishCleanupAttempt"]>[1];
    try {
      await executeCleanup(deps, job);
      outcome = { state: "succeeded" };
    } catch (e) {
      const error = e instanceof Error ? e.message : String(e);
      const last = job.attempts >= job.maxAttempts;
      deps.log.warn(
        { jobId: job.id, taskId: job.taskId, attempt: job.attempts, err: e },
        last ? "cleanup job failed for good" : "cleanup attempt failed; will retry",
      );
      outcome = last
        ? { state: "failed", error }
        : {
            state: "retry_wait",
            error,
            nextRunAt: new Date(this.clock() + cleanupBackoffMs(job.attempts, this.opts.backoffMs ?? CLEANUP_BACKOFF_MS)).toISOString(),
          };
    }
    const done = await deps.store.finishCleanupAttempt(job.id, outcome, deps.now());
    publishJob(deps, done);
    if (done?.state === "succeeded" && job.trigger === "archive") {
      // Only an event: a failure here must not make the recorded job look stranded.
      try {
        const task = await deps.store.getTask(job.taskId);
        if (task) deps.bus.publish("task.updated", { task: taskView(task) });
      } catch (e) {
        deps.log.warn({ jobId: job.id, taskId: job.taskId, err: e }, "cleanup: task.updated after archive not published");
      }
    }
  }

  /**
   * One timer for the earliest waiting job of this runner (none when there is none), but no
   * sooner than `minDelayMs`; when stranded jobs wait, or the lookup itself fails, a timer
   * fires after `retryDelayMs` regardless, so a transient database error never leaves the
   * worker idle until the next kick or restart.
   */
  private async arm(minDelayMs: number): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.stopped) return;
    let delay: number | undefined;
    try {
      const at = await this.deps.store.nextCleanupDueAt(this.deps.runnerId);
      if (at !== null) delay = Math.max(minDelayMs, Math.min(Math.max(0, Date.parse(at) - this.clock()), MAX_TIMER_MS));
      if (this.stranded.size > 0) delay = Math.min(delay ?? this.retryDelayMs, this.retryDelayMs);
    } catch (e) {
      this.deps.log.error({ err: e }, "cleanup: could not arm the timer; retrying later");
      delay = this.retryDelayMs;
    }
    if (delay === undefined || this.stopped) return;
    this.timer = setTimeout(() => this.kick(), delay);
    this.timer.unref();
  }
}
