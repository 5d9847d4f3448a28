import type { RunAction } from "../../domain/workflow.js";
import type { WorkflowRunRecord } from "../../domain/workflow-run.js";

/** A run to queue: its key, where it belongs and what it does (the store adds its state and times). */
export type NewRun = Pick<WorkflowRunRecord, "idemKey" | "taskId" | "entryId" | "workflow" | "version" | "step" | "actionIndex" | "cause"> & {
  action: RunAction;
};

/** What the workflow engine's parts use of its queue (WF-2): runs go in exactly once, every change is announced. */
export interface RunQueue {
  /** Inserts a run unless its key exists (exactly once) and announces it. */
  enqueue(r: NewRun): Promise<WorkflowRunRecord | undefined>;
  /** Announces a run's change (`workflow.run`). */
  publish(run: WorkflowRunRecord): void;
  /** Claims and runs every runnable pending run. */
  drain(): Promise<void>;
}

/** The action index of the runs an action's outcome queues (its move, a failure's prompt): past any onEnter list. */
export const TRANSITION_INDEX = 1000;
