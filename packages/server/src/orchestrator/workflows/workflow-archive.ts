import type { TaskRecord } from "../../domain/records.js";
import { type WorkflowRecord, stepOf } from "../../domain/workflow.js";
import type { Deps } from "../context.js";
import { workflowOf } from "../tasks/task-workflow.js";
import { type Enqueue, type Look, WorkflowPoller } from "./workflow-poller.js";

/** The cause of an archive run. */
export const ARCHIVE_CAUSE = "archive_after_days";

/** The action index of an archive run: past any onEnter list and any transition of the entry. */
export const ARCHIVE_INDEX = 2000;

const DAY_MS = 86_400_000;

/** The longest sleep between two checks: a step entry recorded by another runner is noticed by then. */
const MAX_SLEEP_MS = 3_600_000;

/** WF-2.17: one archive per step entry: the task, and the entry whose days ran out. */
export function archiveKey(taskId: string, entryId: string): string {
  return `archive:${taskId}:${entryId}`;
}

/**
 * WF-2.17 `archiveAfterDays`: a task that has been N days in such a step (counted from its entry,
 * the engine's record of the move) is archived through LC-2's durable archive. A check queues
 * the due entry's `archive` run under the key (task, entry): two runners, or a restart, queue
 * one run, and the claim lets one runner execute it. A task that left the step has a newer
 * entry, so its old entry is never due; a run queued before a person's move is cancelled by it.
 */
export class WorkflowArchiver extends WorkflowPoller<Pick<Deps, "store" | "log" | "now">> {
  constructor(deps: Pick<Deps, "store" | "log" | "now">, enqueue: Enqueue, queued: () => void) {
    super(deps, enqueue, queued, "workflow: the archive check failed");
  }

  /** Checks now (an entry was recorded, a workflow stored) and re-arms for the next due entry. One check at a time. */
  check(): Promise<void> {
    return this.poll();
  }

  protected async look(now: number): Promise<Look> {
    let wake = now + MAX_SLEEP_MS;
    const archiving = (await this.deps.store.workflows.list()).filter((w) => !w.stopped && w.definition.steps.some((s) => s.archiveAfterDays !== undefined));
    let queued = false;
    if (archiving.length > 0) {
      for (const task of await this.deps.store.listTasks({ archived: false })) {
        const due = await this.dueOf(task, archiving);
        if (due === undefined) continue;
        if (due.at > now) {
          wake = Math.min(wake, due.at);
          continue;
        }
        const run = await this.enqueue({
          idemKey: archiveKey(task.id, due.entryId),
          taskId: task.id,
          entryId: due.entryId,
          workflow: due.workflow.name,
          version: due.workflow.version,
          step: task.state,
          actionIndex: ARCHIVE_INDEX,
          action: { action: "archive", afterDays: due.days },
          cause: ARCHIVE_CAUSE,
        });
        queued ||= run !== undefined;
      }
    }
    return { queued, wake };
  }

  /** When the task's current entry is due for archiving, if its step archives and the entry is of its column. */
  private async dueOf(
    task: TaskRecord,
    archiving: WorkflowRecord[],
  ): Promise<{ at: number; entryId: string; days: number; workflow: WorkflowRecord } | undefined> {
    const wf = await workflowOf(this.deps, task);
    if (!archiving.some((w) => w.name === wf.name)) return undefined;
    const days = stepOf(wf.definition, task.state)?.archiveAfterDays;
    if (days === undefined) return undefined;
    const entry = await this.deps.store.workflows.latestEntry(task.id);
    // No entry of this column yet: the engine records it on the task's next event or its start-up sweep.
    if (!entry || entry.step !== task.state) return undefined;
    if (await this.deps.store.workflows.isTaskStopped(task.id)) return undefined;
    return { at: Date.parse(entry.createdAt) + days * DAY_MS, entryId: entry.id, days, workflow: wf };
  }
}
