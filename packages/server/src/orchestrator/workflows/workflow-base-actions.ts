import { newId } from "../../domain/ids.js";
import { isAppError } from "../../domain/errors.js";
import type { TaskRecord } from "../../domain/records.js";
import { type UpdateBaseAction, renderTemplate } from "../../domain/workflow.js";
import type { WorkflowRunRecord } from "../../domain/workflow-run.js";
import { operationInProgress } from "../../git/rebase.js";
import type { Deps } from "../context.js";
import { faultPoint } from "../fault-points.js";
import { notAttachedError, reviewSlot } from "../review/review-slot.js";
import { type ActionResult, type WorkflowPorts, promptWentOut, templateFields, workingSession } from "./workflow-actions.js";

/** The cause key of the one inbox item a task gets when its conflict rounds are spent. */
export const baseCapCause = (taskId: string) => `workflow-base-cap:${taskId}`;

/**
 * WF-2.20: brings one repository of the task up to its base through update-from-base (the
 * review code's path, conflicts kept). Clean → done. Conflicts → to the working session through
 * the review code's "send conflicts" (its target recorded first, as `send_checks` does), and the
 * run waits for that turn; the person (or a later update) continues the stopped rebase. Past
 * `maxRounds` conflict rounds the update is aborted (the branch as it was) and one inbox item
 * hands it to a person. A redo after a crash finds the stopped operation (no second update) or
 * the prompt gone out (no second send).
 */
export async function updateBase(
  deps: Pick<Deps, "store" | "git" | "worktrees" | "home" | "remote" | "bus" | "now">,
  ports: WorkflowPorts,
  run: WorkflowRunRecord,
  task: TaskRecord,
  a: UpdateBaseAction,
): Promise<ActionResult> {
  if (await promptWentOut(deps, run)) return { state: "waiting", sessionId: run.sessionId! };
  try {
    const slot = await reviewSlot(deps, task.id, a.repositoryId, notAttachedError());
    if (!(await operationInProgress(deps.git, slot.worktree))) {
      const [r] = (await ports.updateFromBase(task.id, { repositoryId: a.repositoryId, mode: a.mode, keepConflicts: true, autostash: true })).results;
      if (r?.outcome !== "conflicts") return { state: "succeeded", outcome: r?.outcome === "updated" ? `updated onto ${a.base.slice(0, 12)}` : "up to date" };
    }
    const rounds = (await deps.store.workflows.listRuns(task.id)).filter((x) => x.cause === run.cause && x.sessionId !== null && x.id !== run.id).length;
    if (rounds >= a.maxRounds) {
      await ports.abortUpdate(task.id, { repositoryId: a.repositoryId });
      const item = await deps.store.inbox.raise({
        id: newId("inbox"),
        kind: "conflict",
        taskId: task.id,
        causeKey: baseCapCause(task.id),
        title: `${task.title}: conflicts with the base remain after ${a.maxRounds} automatic round${a.maxRounds === 1 ? "" : "s"}; over to you`,
        detail: `base ${a.base}`,
        createdAt: deps.now(),
      });
      if (item) deps.bus.publish("inbox.updated", { item });
      return { state: "failed", outcome: `conflicts after ${rounds} round${rounds === 1 ? "" : "s"}: the update was aborted; over to a person` };
    }
    const target = run.sessionId ? await deps.store.getSession(run.sessionId) : await workingSession(deps, task.id);
    if (!target) return { state: "failed", outcome: "conflicts, and the task has no session to resolve them" };
    await deps.store.workflows.planSession(run.id, target.id, deps.now());
    await faultPoint("workflow.after_plan");
    const prompt = a.prompt ? renderTemplate(a.prompt, await templateFields(deps, task, run.step)) : undefined;
    await ports.sendConflicts(task.id, { sessionId: target.id, repositoryId: a.repositoryId, ...(prompt ? { prompt } : {}) });
    await faultPoint("workflow.after_prompt");
    return { state: "waiting", sessionId: target.id };
  } catch (e) {
    if (isAppError(e)) return { state: "failed", outcome: `${e.code}: ${e.message}` };
    throw e;
  }
}
