import type { EventFrame, Session } from "@grove/protocol";
import { newId } from "../../domain/ids.js";
import type { TaskRecord } from "../../domain/records.js";
import { SerialChain } from "../../domain/serial-chain.js";
import type { BoardStep, UpdateBaseAction } from "../../domain/workflow.js";
import { type CommandResult, pendingRunRecord, type WorkflowRunRecord, workflowRunView } from "../../domain/workflow-run.js";
import type { Deps } from "../context.js";
import { faultPoint } from "../fault-points.js";
import { type ActionResult, BUSY, type WorkflowPorts, executeAction } from "./workflow-actions.js";
import { updateBase } from "./workflow-base-actions.js";
import { stopCommand } from "./workflow-command.js";
import { assertWipRoom } from "./workflow-moves.js";
import { WorkflowIssues } from "./workflow-issues.js";
import { WorkflowSchedules } from "./workflow-schedules.js";
import { WorkflowArchiver } from "./workflow-archive.js";
import { WorkflowReviewComments } from "./workflow-review-comments.js";
import { WorkflowBaseWatch } from "./workflow-base.js";
import type { PollerHooks } from "./workflow-poller.js";
import { onPullRequest } from "./workflow-triggers.js";
import { recordEntries } from "./workflow-entries.js";
import { claimableHere } from "./workflow-run-gates.js";
import { commandEnded, turnEnded } from "./workflow-outcomes.js";
import type { NewRun, RunQueue } from "./workflow-run-queue.js";
import { workflowOf } from "../tasks/task-workflow.js";

/** The ports (orchestrator/context.ts) WorkflowEngine uses. */
export type WorkflowEnginePorts = Pick<Deps, "store" | "git" | "worktrees" | "profiles" | "bus" | "log" | "home" | "runnerId" | "now" | "remote" | "sandbox">;

/**
 * WF-2: runs workflows. A task entering a step (whoever moved it) is recorded once as a step
 * entry (unique per task and sequence number, so two runners record it once); its onEnter
 * actions become durable runs keyed by (task, workflow version, entry, action index). Runs are
 * claimed by compare-and-set and executed in order; an action that started or prompted a
 * session waits for that turn, whose outcome moves the task through a run of its own.
 * Reacts to this process's own frames only: the runner where a thing happened handles it.
 */
export class WorkflowEngine {
  private readonly chain = new SerialChain((err: unknown) => this.deps.log.error({ err }, "workflow: handling an event failed"));
  private off: (() => void) | undefined;
  private stopped = false;
  /** The engine's queue as its parts (entries, gates, outcomes) see it. */
  private readonly queue: RunQueue = { enqueue: (r) => this.enqueue(r), publish: (r) => this.publish(r), drain: () => this.drain() };
  /** WF-2: the schedules' clock; a tick queues a run this engine executes. */
  readonly schedules: WorkflowSchedules;
  /** WF-2: the issues trigger's poller; a new labeled issue queues runs this engine executes. */
  readonly issues: WorkflowIssues;
  /** WF-2.17: archives tasks whose days in an `archiveAfterDays` step ran out. */
  readonly archiver: WorkflowArchiver;
  /** WF-2.19: polls the review comments of open pull requests; a new one queues a run this engine executes. */
  readonly reviewComments: WorkflowReviewComments;
  /** WF-2.20: notices a base that moved past a task's branch; queues the update this engine executes. */
  readonly baseWatch: WorkflowBaseWatch;

  constructor(
    private readonly deps: WorkflowEnginePorts,
    private readonly ports: WorkflowPorts,
  ) {
    const hooks: PollerHooks = { enqueue: (r) => this.enqueue(r), queued: () => this.kick() };
    this.schedules = new WorkflowSchedules(deps, hooks);
    this.issues = new WorkflowIssues(deps, hooks);
    this.archiver = new WorkflowArchiver(deps, hooks);
    this.reviewComments = new WorkflowReviewComments(deps, hooks);
    this.baseWatch = new WorkflowBaseWatch(deps, hooks);
  }

  /** Subscribes, re-runs this runner's claimed runs (a crash left them running) and reconciles every task's entry. */
  start(): void {
    this.off = this.deps.bus.subscribe((f) => {
      if (!this.deps.bus.isRemoteDelivery) this.onFrame(f);
      // Another runner queued or ended a run: one for this runner (its task lives here) may be due.
      else if (f.type === "workflow.run" && !this.stopped) this.kick();
    });
    this.chain.enqueue(async () => {
      for (const run of await this.deps.store.workflows.runningRuns(this.deps.runnerId)) {
        await this.execute(run);
        // Logged once the redo has been decided (a command adopted or started, a turn awaited), so
        // an operator, and the WF-2.14 crash tests, can tell when a restart picked the run up again.
        this.deps.log.info({ runId: run.id, taskId: run.taskId, action: run.action.action }, "workflow run resumed after a restart");
      }
      for (const task of await this.deps.store.listTasks({ archived: false })) await this.onTask(task.id, { sweep: true });
      await this.drain();
      if (!this.stopped) this.schedules.start();
      if (!this.stopped) this.issues.start();
      if (!this.stopped) this.archiver.start();
      if (!this.stopped) this.reviewComments.start();
      if (!this.stopped) this.baseWatch.start();
    });
  }

  /** Resolves once every queued piece of work is done (tests, shutdown). */
  flush(): Promise<void> {
    return this.chain.flush();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.off?.();
    await this.schedules.stop();
    await this.issues.stop();
    await this.archiver.stop();
    await this.reviewComments.stop();
    await this.baseWatch.stop();
    await this.chain.flush();
  }

  /**
   * Holds the engine's queue until `until` settles: frames and runs queued meanwhile wait, then go
   * in order (a test that moves a task faster than the engine; a pause around maintenance).
   */
  hold(until: Promise<unknown>): void {
    this.chain.enqueue(async () => {
      await until.catch(() => undefined);
    });
  }

  /** Queued work: a new run is due. */
  kick(): void {
    this.chain.enqueue(() => this.drain());
  }

  /**
   * WF-2: a person moves a task. Refused past the target's WIP limit; otherwise every run of the
   * task in progress is cancelled first (a person's action wins), with the turn it waits for.
   */
  async beforePersonMove(task: TaskRecord, to: BoardStep): Promise<void> {
    if (task.state === to) return;
    const wf = await workflowOf(this.deps, task);
    await assertWipRoom(this.deps, wf, task, to);
    await this.cancelRuns(task.id, "cancelled: a person moved the task");
  }

  /** WF-2: a stop switch was set: what is in progress is cancelled, nothing new is queued. */
  async cancelRuns(taskId: string | undefined, why: string, workflow?: string): Promise<void> {
    const cancelled = await this.deps.store.workflows.cancelRuns({ ...(taskId !== undefined ? { taskId } : {}), workflow }, why, this.deps.now());
    for (const r of cancelled) {
      this.publish(r);
      if (r.action.action === "run") stopCommand(this.deps, r.id);
      if (r.sessionId && r.action.action !== "send_comments") {
        const s = await this.deps.store.getSession(r.sessionId);
        if (s && BUSY.has(s.state))
          await this.ports
            .cancelTurn(s.id)
            .catch((err: unknown) => this.deps.log.warn({ err, sessionId: s.id }, "workflow: the cancelled run's turn could not be cancelled"));
      }
    }
  }

  private onFrame(f: EventFrame): void {
    if (this.stopped) return;
    if (f.type === "task.updated" || f.type === "task.created") {
      // WF-2.21: the frame's column is the move as it happened; the task may have moved on (or back) since.
      const { id, state } = (f as EventFrame<"task.updated">).data.task;
      this.chain.enqueue(async () => {
        await this.onTask(id, { seen: state });
        await this.drain();
      });
    } else if (f.type === "pull_request.updated") {
      const d = (f as EventFrame<"pull_request.updated">).data;
      this.chain.enqueue(async () => {
        await onPullRequest(this.deps, (r) => this.enqueue(r), d.taskId, d.pullRequest);
        await this.drain();
      });
    } else if (f.type === "session.state_changed") {
      const { session, from } = (f as EventFrame<"session.state_changed">).data;
      if (!BUSY.has(session.state) && (from === null || BUSY.has(from))) this.chain.enqueue(() => this.onTurnEnd(session));
    }
  }

  /** WF-2.21: the task's entries into its columns, recorded once, their onEnter actions queued (workflow-entries.ts). */
  private onTask(taskId: string, opts: { sweep?: boolean; seen?: string } = {}): Promise<void> {
    return recordEntries(this.deps, this.queue, () => void this.archiver.check(), taskId, opts);
  }

  /** Inserts a run unless its key exists (exactly once) and announces it. */
  async enqueue(r: NewRun): Promise<WorkflowRunRecord | undefined> {
    const run = await this.deps.store.workflows.enqueue(pendingRunRecord(r, newId("wfr"), this.deps.now()));
    if (run) this.publish(run);
    return run;
  }

  /** Claims and runs every runnable pending run, in order of entry and action index. */
  private async drain(): Promise<void> {
    for (let progressed = true; progressed && !this.stopped; ) {
      progressed = false;
      for (const run of await this.deps.store.workflows.pendingRuns()) {
        if (!(await claimableHere(this.deps, this.queue, run))) continue;
        const claimed = await this.deps.store.workflows.claim(run.id, this.deps.runnerId, this.deps.now());
        if (!claimed) continue; // another runner, or a cancel, won
        this.publish(claimed);
        await faultPoint("workflow.after_claim");
        await this.execute(claimed);
        progressed = true;
      }
    }
  }

  private async execute(run: WorkflowRunRecord): Promise<void> {
    const result = run.action.action === "update_base" ? await this.updateBase(run, run.action) : await executeAction(this.deps, this.ports, run);
    if (result.state === "command") {
      // The command runs on without holding the queue; its end comes back through it.
      result.done.then(
        (r) => this.chain.enqueue(() => this.onCommandEnd(run, r)),
        (err: unknown) =>
          this.chain.enqueue(() =>
            this.onCommandEnd(run, { exitCode: null, timedOut: false, output: `the command's result could not be read: ${String(err)}` }),
          ),
      );
      return;
    }
    if (result.state === "waiting") {
      // The turn may have ended before we looked (a redo after a crash, a very short turn).
      const s = await this.deps.store.getSession(result.sessionId);
      const fresh = await this.deps.store.workflows.getRun(run.id);
      if (s && fresh?.state === "running" && !BUSY.has(s.state) && s.lastTurn && s.lastTurn.at >= fresh.createdAt)
        await this.onTurnEnd(s as unknown as Session);
      return;
    }
    const done = await this.deps.store.workflows.finish(run.id, result.state, result.outcome, this.deps.now());
    if (done) this.publish(done);
  }

  /** WF-2.20: the update of a moved base (its task live and not archived, as every action at the task). */
  private async updateBase(run: WorkflowRunRecord, a: UpdateBaseAction): Promise<ActionResult> {
    const task = await this.deps.store.getTask(run.taskId);
    if (!task || task.archivedAt) return { state: "skipped", outcome: "the task is archived or gone" };
    return updateBase(this.deps, this.ports, run, task, a);
  }

  /** WF-2.13: a `run` action's command ended (ignored once the engine stopped). */
  private async onCommandEnd(run: WorkflowRunRecord, r: CommandResult): Promise<void> {
    if (this.stopped) return;
    await commandEnded(this.deps, this.queue, run, r);
  }

  /** A turn ended: the run waiting for it ends with the turn's outcome, and the step's transition is queued. */
  private onTurnEnd(session: Pick<Session, "id" | "taskId" | "state" | "lastTurn">): Promise<void> {
    return turnEnded(this.deps, this.queue, session);
  }

  publish(run: WorkflowRunRecord): void {
    this.deps.bus.publish("workflow.run", {
      taskId: run.taskId,
      workflow: run.workflow,
      step: run.step,
      action: run.action.action,
      outcome: run.outcome ?? run.state,
      run: workflowRunView(run),
    });
  }
}
