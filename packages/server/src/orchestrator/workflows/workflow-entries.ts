import { newId } from "../../domain/ids.js";
import type { TaskRecord } from "../../domain/records.js";
import { BOARD_STEPS, type BoardStep, type WorkflowRecord, recordsEntries, stepOf } from "../../domain/workflow.js";
import { enterKey } from "../../domain/workflow-run.js";
import type { Deps } from "../context.js";
import { workflowOf } from "../tasks/task-workflow.js";
import { stopCommand } from "./workflow-command.js";
import type { RunQueue } from "./workflow-run-queue.js";

/** The ports recording a step entry uses. */
export type EntryPorts = Pick<Deps, "store" | "now" | "home">;

/**
 * Records the task's entry into its column (once) and queues the step's onEnter actions. Under
 * the plain board nothing is recorded. WF-2.21: `seen` is the column of the move a frame
 * announced; when the task has moved on since (a move straight back included), that entry is
 * recorded first, then the current one, so every move is acted on once even when moves come
 * faster than the engine. The start-up sweep catches a move whose entry a crash prevented; a
 * task it sees for the first time is adopted (its entry recorded, no actions: it did not just
 * enter its column). `archiveCountdown`: an entered step archives after some days (WF-2.17).
 */
export async function recordEntries(
  deps: EntryPorts,
  queue: Pick<RunQueue, "enqueue" | "publish">,
  archiveCountdown: () => void,
  taskId: string,
  opts: { sweep?: boolean; seen?: string } = {},
): Promise<void> {
  const task = await deps.store.getTask(taskId);
  if (!task || task.archivedAt) return;
  const wf = await workflowOf(deps, task);
  if (!recordsEntries(wf.definition)) return;
  if (opts.seen !== undefined && opts.seen !== task.state && (BOARD_STEPS as readonly string[]).includes(opts.seen))
    await enter(deps, queue, archiveCountdown, task, wf, opts.seen as BoardStep, { current: false });
  await enter(deps, queue, archiveCountdown, task, wf, task.state, { current: true, ...(opts.sweep ? { sweep: true } : {}) });
}

/**
 * One entry of the task into `step`, unless it is the latest already. Runs of the step left are
 * superseded. A step the task has already left again (`current: false`) gets its entry but no
 * actions: they would only be cancelled by the next entry.
 */
async function enter(
  deps: EntryPorts,
  queue: Pick<RunQueue, "enqueue" | "publish">,
  archiveCountdown: () => void,
  task: TaskRecord,
  wf: WorkflowRecord,
  step: BoardStep,
  opts: { current: boolean; sweep?: boolean },
): Promise<void> {
  const { store } = deps;
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
    createdAt: deps.now(),
  };
  if (!(await store.workflows.addEntry(entry))) return; // another runner recorded it
  // Runs of the step the task left are superseded (the run that moved it has finished).
  for (const r of await store.workflows.cancelRuns({ taskId, exceptEntry: entry.id }, "superseded: the task entered another step", deps.now())) {
    queue.publish(r);
    if (r.action.action === "run") stopCommand(deps, r.id);
  }
  if (!opts.current || wf.stopped || (opts.sweep && !latest) || (await store.workflows.isTaskStopped(taskId))) return;
  const def = stepOf(wf.definition, step);
  // WF-2.17: the entry starts the step's archive countdown; the archiver arms its timer for it.
  if (def?.archiveAfterDays !== undefined) archiveCountdown();
  for (const [i, action] of (def?.onEnter ?? []).entries()) {
    await queue.enqueue({
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
