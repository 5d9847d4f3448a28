import type { EventFrame, Session } from "@grove/protocol";
import { newId } from "../../domain/ids.js";
import type { TaskRecord } from "../../domain/records.js";
import { SerialChain } from "../../domain/serial-chain.js";
import {
  BOARD_STEPS,
  type BoardStep,
  type WorkflowRecord,
  type TransitionOutcome,
  type RunAction,
  type UpdateBaseAction,
  recordsEntries,
  renderTemplate,
  stepOf,
} from "../../domain/workflow.js";
import { ACTIVE_RUN_STATES, type CommandResult, type WorkflowRunRecord, enterKey, workflowRunView } from "../../domain/workflow-run.js";
import type { Deps } from "../context.js";
import { faultPoint } from "../fault-points.js";
import { type ActionResult, BUSY, type WorkflowPorts, executeAction, templateFields, workingSession } from "./workflow-actions.js";
import { updateBase } from "./workflow-base-actions.js";
import { commandOutcome, stopCommand } from "./workflow-command.js";
import { getWorkflowOr404 } from "./workflow-defs.js";
import { assertWipRoom } from "./workflow-moves.js";
import { WorkflowIssues } from "./workflow-issues.js";
import { WorkflowSchedules } from "./workflow-schedules.js";
import { WorkflowArchiver } from "./workflow-archive.js";
import { REVIEW_COMMENT_CAUSE, WorkflowReviewComments } from "./workflow-review-comments.js";
import { WorkflowBaseWatch } from "./workflow-base.js";
import { onPullRequest } from "./workflow-triggers.js";
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
    this.schedules = new WorkflowSchedules(
      deps,
      (r) => this.enqueue(r),
      () => this.kick(),
    );
    this.issues = new WorkflowIssues(
      deps,
      (r) => this.enqueue(r),
      () => this.kick(),
    );
    this.archiver = new WorkflowArchiver(
      deps,
      (r) => this.enqueue(r),
      () => this.kick(),
    );
    this.reviewComments = new WorkflowReviewComments(
      deps,
      (r) => this.enqueue(r),
      () => this.kick(),
    );
    this.baseWatch = new WorkflowBaseWatch(
      deps,
      (r) => this.enqueue(r),
      () => this.kick(),
    );
  }

  /** Subscribes, re-runs this runner's claimed runs (a crash left them running) and reconciles every task's entry. */
  start(): void {
    this.off = this.deps.bus.subscribe((f) => {
      if (!this.deps.bus.isRemoteDelivery) this.onFrame(f);
      // Another runner queued or ended a run: one for this runner (its task lives here) may be due.
      else if (f.type === "workflow.run" && !this.stopped) this.kick();
    });
    this.chain.enqueue(async () => {
      for (const run of await this.deps.store.workflows.runningRuns(this.deps.runnerId)) await this.execute(run);
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

  /**
   * Records the task's entry into its column (once) and queues the step's onEnter actions. Under
   * the plain board nothing is recorded. WF-2.21: `seen` is the column of the move a frame
   * announced; when the task has moved on since (a move straight back included), that entry is
   * recorded first, then the current one, so every move is acted on once even when moves come
   * faster than the engine. The start-up sweep catches a move whose entry a crash prevented; a
   * task it sees for the first time is adopted (its entry recorded, no actions: it did not just
   * enter its column).
   */
  private async onTask(taskId: string, opts: { sweep?: boolean; seen?: string } = {}): Promise<void> {
    const task = await this.deps.store.getTask(taskId);
    if (!task || task.archivedAt) return;
    const wf = await workflowOf(this.deps, task);
    if (!recordsEntries(wf.definition)) return;
    if (opts.seen !== undefined && opts.seen !== task.state && (BOARD_STEPS as readonly string[]).includes(opts.seen))
      await this.enter(task, wf, opts.seen as BoardStep, { current: false });
    await this.enter(task, wf, task.state, { current: true, ...(opts.sweep ? { sweep: true } : {}) });
  }

  /**
   * One entry of the task into `step`, unless it is the latest already. Runs of the step left are
   * superseded. A step the task has already left again (`current: false`) gets its entry but no
   * actions: they would only be cancelled by the next entry.
   */
  private async enter(task: TaskRecord, wf: WorkflowRecord, step: BoardStep, opts: { current: boolean; sweep?: boolean }): Promise<void> {
    const { store } = this.deps;
    const taskId = task.id;
    const latest = await store.workflows.latestEntry(taskId);
    if (latest?.step === step) return;
    const entry = {
      id: newId("wfe"),
      taskId,
      seq: (latest?.seq ?? 0) + 1,
      step,
      workflow: wf.name,
      version: wf.version,
      createdAt: this.deps.now(),
    };
    if (!(await store.workflows.addEntry(entry))) return; // another runner recorded it
    // Runs of the step the task left are superseded (the run that moved it has finished).
    for (const r of await store.workflows.cancelRuns({ taskId, exceptEntry: entry.id }, "superseded: the task entered another step", this.deps.now())) {
      this.publish(r);
      if (r.action.action === "run") stopCommand(this.deps, r.id);
    }
    if (!opts.current || wf.stopped || (opts.sweep && !latest) || (await store.workflows.isTaskStopped(taskId))) return;
    const def = stepOf(wf.definition, step);
    // WF-2.17: the entry starts the step's archive countdown; the archiver arms its timer for it.
    if (def?.archiveAfterDays !== undefined) void this.archiver.check();
    for (const [i, action] of (def?.onEnter ?? []).entries()) {
      await this.enqueue({
        idemKey: enterKey(taskId, wf.version, entry.id, i),
        taskId,
        entryId: entry.id,
        workflow: wf.name,
        version: wf.version,
        step,
        actionIndex: i,
        action,
        cause: "enter",
      });
    }
  }

  /** Inserts a run unless its key exists (exactly once) and announces it. */
  async enqueue(
    r: Pick<WorkflowRunRecord, "idemKey" | "taskId" | "entryId" | "workflow" | "version" | "step" | "actionIndex" | "cause"> & { action: RunAction },
  ): Promise<WorkflowRunRecord | undefined> {
    const now = this.deps.now();
    const run = await this.deps.store.workflows.enqueue({
      ...r,
      id: newId("wfr"),
      state: "pending",
      runnerId: null,
      attempts: 0,
      outcome: null,
      sessionId: null,
      result: null,
      createdAt: now,
      updatedAt: now,
    });
    if (run) this.publish(run);
    return run;
  }

  /** Claims and runs every runnable pending run, in order of entry and action index. */
  private async drain(): Promise<void> {
    for (let progressed = true; progressed && !this.stopped; ) {
      progressed = false;
      for (const run of await this.deps.store.workflows.pendingRuns()) {
        if (!(await this.predecessorsDone(run))) continue;
        if (await this.elsewhere(run)) continue; // its task's runner claims it
        if (await this.targetBusy(run)) continue; // claimed when that turn ends
        const claimed = await this.deps.store.workflows.claim(run.id, this.deps.runnerId, this.deps.now());
        if (!claimed) continue; // another runner, or a cancel, won
        this.publish(claimed);
        await faultPoint("workflow.after_claim");
        await this.execute(claimed);
        progressed = true;
      }
    }
  }

  /**
   * A session action acts where the task's files are: a run of a task whose environment lives
   * on another runner is left to that runner (the relayed `workflow.run` frame wakes it).
   */
  private async elsewhere(run: WorkflowRunRecord): Promise<boolean> {
    if (!AT_THE_TASK.has(run.action.action)) return false;
    const env = await this.deps.store.getEnvironmentByTask(run.taskId);
    return env !== undefined && env.runnerId !== this.deps.runnerId;
  }

  /**
   * Runs that wait, unclaimed, while the task's agent is in a turn; the turn's end drains the
   * queue again. WF-2.19: a review comment for the working session (a prompt would be refused).
   */
  private async targetBusy(run: WorkflowRunRecord): Promise<boolean> {
    // WF-2.20: the base is brought in only while no agent of the task is in a turn (it would change files under it).
    if (run.action.action === "update_base" && run.state === "pending") return (await this.deps.store.listSessions(run.taskId)).some((s) => BUSY.has(s.state));
    if (run.action.action !== "pr_comment" || run.action.agent) return false;
    const s = await workingSession(this.deps, run.taskId);
    return s !== undefined && BUSY.has(s.state);
  }

  /**
   * Earlier onEnter actions of the same entry must have ended well; after a failed one the rest
   * is cancelled. A transition (an outcome's move, index {@link TRANSITION_INDEX} and up) is what
   * an ended action asked for, failed ones included: it waits for nothing.
   */
  private async predecessorsDone(run: WorkflowRunRecord): Promise<boolean> {
    // WF-2.19: a task's review comments go one at a time, in the order they were seen.
    if (run.cause === REVIEW_COMMENT_CAUSE) {
      const before = (r: WorkflowRunRecord) => r.createdAt < run.createdAt || (r.createdAt === run.createdAt && r.actionIndex < run.actionIndex);
      return (await this.deps.store.workflows.listRuns(run.taskId)).every(
        (r) => r.id === run.id || r.cause !== REVIEW_COMMENT_CAUSE || !before(r) || !ACTIVE_RUN_STATES.includes(r.state),
      );
    }
    if (run.entryId === null || run.actionIndex === 0 || run.actionIndex >= TRANSITION_INDEX) return true;
    const earlier = (await this.deps.store.workflows.runsOfEntry(run.entryId)).filter((r) => r.actionIndex < run.actionIndex);
    if (earlier.some((r) => r.state === "failed" || r.state === "cancelled")) {
      const c = await this.deps.store.workflows.finish(run.id, "cancelled", "an earlier action of the step did not succeed", this.deps.now(), ["pending"]);
      if (c) this.publish(c);
      return false;
    }
    return earlier.every((r) => r.state === "succeeded" || r.state === "skipped");
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

  /**
   * WF-2.13: a `run` action's command ended. The run's end (with the exit code and output
   * excerpt) and what it implies commit together: `onSuccess.to` / `onFailure.to` as a move run
   * of the same entry, `onFailure.prompt` (rendered now, with the output) as a prompt run of the
   * target step that outlives the move, so its turn's outcome drives that step's transitions.
   */
  private async onCommandEnd(run: WorkflowRunRecord, r: CommandResult): Promise<void> {
    if (this.stopped || run.action.action !== "run") return;
    const a = run.action;
    const ok = r.exitCode === 0 && !r.timedOut;
    const to = (ok ? a.onSuccess?.to : a.onFailure?.to) as BoardStep | undefined;
    const outcome = `${commandOutcome(r, a.timeoutSeconds)}${to ? ` → ${to}` : ""}`;
    const task = await this.deps.store.getTask(run.taskId);
    const text =
      !ok && a.onFailure?.prompt && task
        ? renderTemplate(a.onFailure.prompt, {
            ...(await templateFields(this.deps, task, to ?? run.step)),
            command: a.command,
            exitCode: r.exitCode === null ? (r.timedOut ? "timeout" : "none") : String(r.exitCode),
            output: r.output,
          })
        : undefined;
    const base = { taskId: run.taskId, workflow: run.workflow, version: run.version, cause: ok ? "command_succeeded" : "command_failed" };
    const done = await this.deps.store.transaction(async () => {
      const d = await this.deps.store.workflows.finish(run.id, ok ? "succeeded" : "failed", outcome, this.deps.now(), ["running"], r);
      if (!d) return d;
      if (to)
        await this.enqueue({
          ...base,
          idemKey: `command:${run.id}:move`,
          entryId: run.entryId,
          step: run.step,
          actionIndex: TRANSITION_INDEX + 1,
          action: { action: "move", to },
        });
      if (text)
        await this.enqueue({
          ...base,
          idemKey: `command:${run.id}:prompt`,
          entryId: null,
          step: to ?? run.step,
          actionIndex: TRANSITION_INDEX + 2,
          action: { action: "prompt", text },
        });
      return d;
    });
    if (done) this.publish(done);
    await this.drain();
  }

  /** A turn ended: the run waiting for it ends with the turn's outcome, and the step's transition is queued. */
  private async onTurnEnd(session: Pick<Session, "id" | "taskId" | "state" | "lastTurn">): Promise<void> {
    const run = await this.deps.store.workflows.runOfSession(session.id);
    // No run waited for this turn; a review comment may have waited for the session to be free.
    if (!run) return this.drain();
    const outcome = turnOutcome(session);
    if (outcome === "cancelled") {
      const c = await this.deps.store.workflows.finish(run.id, "cancelled", "the turn was cancelled", this.deps.now());
      if (c) this.publish(c);
      return;
    }
    const clean = outcome === "completed" && (await this.deps.store.review.listComments(run.taskId)).every((c) => c.state !== "open");
    const wf = await getWorkflowOr404(this.deps, run.workflow).catch(() => undefined);
    const on = wf ? (stepOf(wf.definition, run.step)?.on ?? {}) : {};
    const label = clean && on.clean ? "clean" : outcome;
    const to = on[label] as BoardStep | undefined;
    // The run's end and the move it implies commit together: a crash leaves both or neither.
    const done = await this.deps.store.transaction(async () => {
      const d = await this.deps.store.workflows.finish(
        run.id,
        outcome === "completed" ? "succeeded" : "failed",
        `turn ${label}${to ? ` → ${to}` : ""}`,
        this.deps.now(),
      );
      if (d && to)
        await this.enqueue({
          idemKey: `turn:${run.id}`,
          taskId: run.taskId,
          entryId: run.entryId,
          workflow: run.workflow,
          version: run.version,
          step: run.step,
          actionIndex: TRANSITION_INDEX,
          action: { action: "move", to },
          cause: `turn_${label}`,
        });
      return d;
    });
    if (done) this.publish(done);
    await this.drain();
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

/** The action index of the runs an action's outcome queues (its move, a failure's prompt): past any onEnter list. */
const TRANSITION_INDEX = 1000;

/** Actions that start or prompt a session: executed on the runner of the task's environment. */
const AT_THE_TASK = new Set(["start_session", "send_comments", "send_checks", "prompt", "run", "pr", "pr_comment", "update_base"]);

function turnOutcome(s: Pick<Session, "state" | "lastTurn">): TransitionOutcome | "cancelled" {
  const o = s.lastTurn?.outcome;
  if (o === "cancelled" || o === "interrupted") return "cancelled";
  if (o === "stalled") return "stalled";
  if (o === "completed" && s.state !== "failed") return "completed";
  return "failed";
}
