import { AppError } from "../../domain/errors.js";
import type { TaskRecord } from "../../domain/records.js";
import { type BoardStep, type WorkflowRecord, stepOf } from "../../domain/workflow.js";
import { taskView } from "../../domain/views.js";
import type { Deps } from "../context.js";
import { workflowOf } from "../tasks/task-workflow.js";

/**
 * WF-1: refuses a move into `to` past the step's WIP limit (`409 wip_limit_reached`). The count
 * is of the live tasks in that column under the same workflow, the moving task excluded.
 */
export async function assertWipRoom(deps: Pick<Deps, "store">, wf: WorkflowRecord, task: TaskRecord, to: BoardStep): Promise<void> {
  const limit = stepOf(wf.definition, to)?.wipLimit;
  if (limit === undefined) return;
  let count = 0;
  for (const t of await deps.store.listTasks({ archived: false })) {
    if (t.id === task.id || t.state !== to) continue;
    if ((await workflowOf(deps, t)).name === wf.name) count += 1;
  }
  if (count >= limit)
    throw new AppError("wip_limit_reached", `step ${to} of workflow ${wf.name} holds ${count} task${count === 1 ? "" : "s"}, its WIP limit is ${limit}`, {
      step: to,
      limit,
      count,
      workflow: wf.name,
    });
}

/** WF-1: an automated move into a guarded step needs what the guard names (a person's move is the approval). */
export async function assertGuard(deps: Pick<Deps, "store">, wf: WorkflowRecord, task: TaskRecord, to: BoardStep): Promise<void> {
  const guard = stepOf(wf.definition, to)?.guard;
  if (guard === "merged_pull_request") {
    const prs = await deps.store.review.listPullRequests(task.id);
    if (!prs.some((p) => p.state === "merged"))
      throw new AppError("workflow_guard", `step ${to} needs a merged pull request (or a person's move)`, { step: to, guard });
  }
}

/**
 * WF-2: moves a task as an automation: guard, WIP limit, then a compare-and-set from the state
 * it was read in (a person's move meanwhile wins). Undefined when the task moved meanwhile.
 */
export async function automatedMove(deps: Pick<Deps, "store" | "bus" | "now">, task: TaskRecord, to: BoardStep): Promise<TaskRecord | undefined> {
  if (task.state === to) return task;
  const wf = await workflowOf(deps, task);
  await assertGuard(deps, wf, task, to);
  await assertWipRoom(deps, wf, task, to);
  const moved = await deps.store.setTaskStateIf(task.id, task.state, to, deps.now());
  if (moved) deps.bus.publish("task.updated", { task: taskView(moved) });
  return moved;
}
