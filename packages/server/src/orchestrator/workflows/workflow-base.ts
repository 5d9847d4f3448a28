import type { TaskRecord } from "../../domain/records.js";
import type { WorkflowRunRecord } from "../../domain/workflow-run.js";
import type { BaseMovedDef, WorkflowRecord } from "../../domain/workflow.js";
import { headCommit } from "../../git/file-lines.js";
import { isAncestor, operationInProgress } from "../../git/rebase.js";
import type { Deps } from "../context.js";
import { refreshedBase } from "../review/review-base.js";
import { notAttachedError, reviewSlots } from "../review/review-slot.js";
import { workflowOf } from "../tasks/task-workflow.js";
import { BUSY } from "./workflow-actions.js";

type Enqueue = (
  r: Pick<WorkflowRunRecord, "idemKey" | "taskId" | "entryId" | "workflow" | "version" | "step" | "actionIndex" | "cause"> & {
    action: WorkflowRunRecord["action"];
  },
) => Promise<WorkflowRunRecord | undefined>;

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
export class WorkflowBaseWatch {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private polling: Promise<void> = Promise.resolve();
  private readonly polledAt = new Map<string, number>();

  constructor(
    private readonly deps: Pick<Deps, "store" | "git" | "worktrees" | "log" | "now" | "home" | "remote" | "runnerId">,
    private readonly enqueue: Enqueue,
    private readonly queued: () => void,
  ) {}

  start(): void {
    this.stopped = false;
    void this.poll();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.polling;
  }

  /** Looks at every workflow whose interval has passed (all with `force`: a workflow was stored), then re-arms. */
  poll(force = false): Promise<void> {
    this.polling = this.polling.then(() => this.pollOnce(force)).catch((err: unknown) => this.deps.log.error({ err }, "workflow: the base check failed"));
    return this.polling;
  }

  private async pollOnce(force: boolean): Promise<void> {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const now = Date.parse(this.deps.now());
    let wake = now + MAX_SLEEP_MS;
    const due: WorkflowRecord[] = [];
    for (const w of await this.deps.store.workflows.list()) {
      const t = w.definition.triggers.baseMoved;
      if (!t || w.stopped) continue;
      const every = t.pollSeconds * 1000;
      const last = this.polledAt.get(w.name);
      if (force || last === undefined || now - last >= every) {
        this.polledAt.set(w.name, now);
        due.push(w);
        wake = Math.min(wake, now + every);
      } else wake = Math.min(wake, last + every);
    }
    if (due.length > 0) {
      let queued = false;
      for (const task of await this.deps.store.listTasks({ archived: false })) {
        queued =
          (await this.checkTask(task, due).catch((err: unknown) => {
            this.deps.log.warn({ err, taskId: task.id }, "workflow: the task's base could not be checked");
            return false;
          })) || queued;
      }
      if (queued) this.queued();
    }
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.poll(), Math.max(10, wake - Date.parse(this.deps.now())));
    this.timer.unref();
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
