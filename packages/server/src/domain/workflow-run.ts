import type { WorkflowRun } from "@grove/protocol";
import type { RunAction } from "./workflow.js";

/** WF-2: `pending → running → succeeded | failed | skipped`, or `cancelled` (a person acted, a stop switch). */
export type WorkflowRunState = WorkflowRun["state"];

/** States that still do (or will do) something: what a person's action or a stop switch cancels. */
export const ACTIVE_RUN_STATES: readonly WorkflowRunState[] = ["pending", "running"];

/** WF-2.13: how a `run` action's command ended: exit code (null when killed), timeout, output excerpt. */
export interface CommandResult {
  exitCode: number | null;
  timedOut: boolean;
  output: string;
}

/** One automated action, the durable job behind it (the public view drops `action`'s payload). */
export interface WorkflowRunRecord {
  id: string;
  /** Unique: the task, the workflow version, the step entry and the action index (or a trigger's key). */
  idemKey: string;
  taskId: string;
  entryId: string | null;
  workflow: string;
  version: number;
  step: string;
  actionIndex: number;
  action: RunAction;
  cause: string;
  state: WorkflowRunState;
  runnerId: string | null;
  attempts: number;
  outcome: string | null;
  sessionId: string | null;
  /** WF-2.13: a `run` command's result (null for other actions, and until it ends). */
  result: CommandResult | null;
  createdAt: string;
  updatedAt: string;
}

/** A task's entry into a step. */
export interface WorkflowEntryRecord {
  id: string;
  taskId: string;
  seq: number;
  step: string;
  workflow: string;
  version: number;
  createdAt: string;
}

/** The idempotency key of an onEnter action (WF-2). */
/** A queued run as the engine inserts it (WF-2): pending, unclaimed, not yet tried. */
export function pendingRunRecord(
  r: Pick<WorkflowRunRecord, "idemKey" | "taskId" | "entryId" | "workflow" | "version" | "step" | "actionIndex" | "cause" | "action">,
  id: string,
  now: string,
): WorkflowRunRecord {
  return { ...r, id, state: "pending", runnerId: null, attempts: 0, outcome: null, sessionId: null, result: null, createdAt: now, updatedAt: now };
}

export function enterKey(taskId: string, version: number, entryId: string, index: number): string {
  return `enter:${taskId}:${version}:${entryId}:${index}`;
}

export function workflowRunView(r: WorkflowRunRecord): WorkflowRun {
  return {
    id: r.id,
    taskId: r.taskId,
    workflow: r.workflow,
    version: r.version,
    step: r.step,
    action: r.action.action,
    cause: r.cause,
    state: r.state,
    outcome: r.outcome,
    sessionId: r.sessionId,
    ...(r.result ? { result: r.result } : {}),
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
}
