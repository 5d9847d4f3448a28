import type { TaskRecord } from "../../domain/records.js";
import type { BaseMovedDef, WorkflowRecord } from "../../domain/workflow.js";
import { headCommit } from "../../git/file-lines.js";
import { isAncestor, operationInProgress } from "../../git/rebase.js";
import type { Deps } from "../context.js";
import { refreshedBase } from "../review/review-base.js";
import { notAttachedError, reviewSlots } from "../review/review-slot.js";
import { workflowOf } from "../tasks/task-workflow.js";
import { BUSY } from "./workflow-actions.js";
import { type Enqueue, type Look, PollIntervals, WorkflowPoller } from "./workflow-poller.js";

/** The ports the base-moved trigger uses. */
type BaseWatchPorts = Pick<Deps, "store" | "git" | "worktrees" | "log" | "now" | "home" | "remote" | "runnerId">;

/** The cause of a base-moved run; its conflict rounds (runs that sent conflicts) count against the cap. */
export const BASE_CAUSE = "base_moved";

/** The longest sleep between two looks at the workflows (a new trigger is noticed by then). */
const MAX_SLEEP_MS = 60_000;

/** WF-2.20: one update per repository, base commit and branch head: a second poll, a restart or a second runner queues nothing. */
export function baseKey(taskId: string, repositoryId: string, base: string, head: string): string {
  return `base:${taskId}:${repositoryId}:${base}:${head}`;
}

/**
 * WF-2.20 base-moved trigger: every `pollSeconds`, each runner looks at the tasks whose worktrees
 * it holds under a workflow with `baseMoved`: a repository whose base (refreshed through its
 * route, as update-from-base does) is not in the task branch queues an `update_base` run. Tasks
 * in Done, with a merged pull request, with a session in a turn, or with a rebase or merge
 * stopped in the worktree (conflicts someone is resolving) are left alone.
 */
export class WorkflowBaseWatch extends WorkflowPoller<BaseWatchPorts> {
  private readonly intervals = new PollIntervals((w) => w.definition.triggers.baseMoved?.pollSeconds);

  constructor(deps: BaseWatchPorts, enqueue: Enqueue, queued: () => void) {
    super(deps, enqueue, queued, "workflow: the base check failed");
  }

  /** Looks at every workflow whose interval has passed (all with `force`: a workflow was stored). */
  protected async look(now: number, force: boolean): Promise<Look> {
    const { due, wake } = this.intervals.due(await this.deps.store.workflows.list(), now, force, now + MAX_SLEEP_MS);
    let queued = false;
    if (due.length > 0) {
      for (const task of await this.deps.store.listTasks({ archived: false })) {
        queued = (await this.guarded(() => this.checkTask(task, due), { taskId: task.id }, "workflow: the task's base could not be checked")) || queued;
      }
    }
    return { queued, wake };
  }

  private async checkTask(task: TaskRecord, due: WorkflowRecord[]): Promise<boolean> {
    if (task.state === "done") return false;
    const wf = await workflowOf(this.deps, task);
    const trigger: BaseMovedDef | undefined = due.find((w) => w.name === wf.name)?.definition.triggers.baseMoved;
    if (!trigger) return false;
    const env = await this.deps.store.getEnvironmentByTask(task.id);
    if (!env || env.runnerId !== this.deps.runnerId) return false;
    if ((await this.deps.store.listSessions(task.id)).some((s) => BUSY.has(s.state))) return false;
    if ((await this.deps.store.review.listPullRequests(task.id)).some((p) => p.state === "merged")) return false;
    if (await this.deps.store.workflows.isTaskStopped(task.id)) return false;
    let queued = false;
    for (const slot of await reviewSlots(this.deps, task.id, undefined, notAttachedError())) {
      if (await operationInProgress(this.deps.git, slot.worktree)) continue;
      const base = await refreshedBase(this.deps, slot);
      const head = await headCommit(this.deps.git, slot.worktree);
      if (await isAncestor(this.deps.git, slot.worktree, base, head)) continue;
      const run = await this.enqueue({
        idemKey: baseKey(task.id, slot.repository.id, base, head),
        taskId: task.id,
        entryId: null,
        workflow: wf.name,
        version: wf.version,
        step: task.state,
        actionIndex: 0,
        action: {
          action: "update_base",
          repositoryId: slot.repository.id,
          base,
          mode: trigger.mode,
          maxRounds: trigger.maxRounds,
          ...(trigger.prompt ? { prompt: trigger.prompt } : {}),
        },
        cause: BASE_CAUSE,
      });
      queued ||= run !== undefined;
    }
    return queued;
  }
}
