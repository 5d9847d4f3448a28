import type { PullRequest } from "@grove/protocol";
import { newId } from "../../domain/ids.js";
import type { RunAction } from "../../domain/workflow.js";
import type { WorkflowRunRecord } from "../../domain/workflow-run.js";
import type { Deps } from "../context.js";
import { workflowOf } from "../tasks/task-workflow.js";

type Enqueue = (
  r: Pick<WorkflowRunRecord, "idemKey" | "taskId" | "entryId" | "workflow" | "version" | "step" | "actionIndex" | "cause"> & { action: RunAction },
) => Promise<WorkflowRunRecord | undefined>;

/** The cause of the CI-fix rounds (WF-2): one run per failing head commit, counted against the cap. */
export const CHECKS_CAUSE = "checks_failed";

/**
 * WF-2 triggers on a pull request's refresh. Checks failed on a head commit → its failure goes
 * to the task's working session (one run per head commit, key `checks:…:<commit>`), at most
 * `maxRounds` per task; the round past the cap raises one inbox item instead. Merged → the
 * workflow's `merged.to` step (a run keyed by the pull request).
 */
export async function onPullRequest(deps: Pick<Deps, "store" | "bus" | "now">, enqueue: Enqueue, taskId: string, pr: PullRequest): Promise<void> {
  const task = await deps.store.getTask(taskId);
  if (!task || task.archivedAt) return;
  const wf = await workflowOf(deps, task);
  if (wf.stopped || (await deps.store.workflows.isTaskStopped(taskId))) return;
  const base = { taskId, entryId: null, workflow: wf.name, version: wf.version, step: task.state, actionIndex: 0 };
  const { checksFailed, merged } = wf.definition.triggers;
  if (checksFailed && pr.checks === "failure" && pr.state === "open") {
    const idemKey = `checks:${taskId}:${pr.repositoryId}:${pr.number}:${pr.headCommit}`;
    if ((await deps.store.workflows.listRuns(taskId)).some((r) => r.idemKey === idemKey)) return;
    if ((await deps.store.workflows.countRuns(taskId, CHECKS_CAUSE)) >= checksFailed.maxRounds) {
      const item = await deps.store.inbox.raise({
        id: newId("inbox"),
        kind: "checks_failed",
        taskId,
        causeKey: `workflow-checks-cap:${taskId}`,
        title: `${task.title}: checks still fail after ${checksFailed.maxRounds} automatic fix rounds; over to you`,
        detail: pr.url,
        createdAt: deps.now(),
      });
      if (item) deps.bus.publish("inbox.updated", { item });
      return;
    }
    await enqueue({ ...base, idemKey, action: { action: "send_checks" }, cause: CHECKS_CAUSE });
  }
  if (pr.state === "merged") {
    // WF-2: the task was created for a provider issue: the merge closes it (one run per issue).
    for (const r of await deps.store.workflows.listRuns(taskId)) {
      const issue = r.action.action === "create_task" ? r.action.issue : undefined;
      if (!issue || r.state !== "succeeded") continue;
      await enqueue({
        ...base,
        idemKey: `issue-close:${issue.repositoryId}:${issue.number}`,
        action: { action: "issue_close", repositoryId: issue.repositoryId, number: issue.number },
        cause: "issue_merged",
      });
    }
  }
  if (merged && pr.state === "merged") {
    await enqueue({ ...base, idemKey: `merged:${taskId}:${pr.repositoryId}:${pr.number}`, action: { action: "move", to: merged.to }, cause: "merged" });
  }
}
