import { ACTIVE_RUN_STATES, type WorkflowRunRecord } from "../../domain/workflow-run.js";
import type { Deps } from "../context.js";
import { credentialKeyIdOf } from "../refresh/remote-context.js";
import { BUSY, workingSession } from "./workflow-actions.js";
import { REVIEW_COMMENT_CAUSE } from "./workflow-review-comments.js";
import { type RunQueue, TRANSITION_INDEX } from "./workflow-run-queue.js";

/** The ports the gates use. */
export type GatePorts = Pick<Deps, "store" | "runnerId" | "now" | "home">;

/** Actions that call the provider with the repository's stored credential. */
const WITH_CREDENTIAL = new Set(["issue_comment", "issue_close"]);

/** Actions that start or prompt a session: executed on the runner of the task's environment. */
const AT_THE_TASK = new Set(["start_session", "send_comments", "send_checks", "prompt", "run", "pr", "pr_comment", "update_base"]);

/** WF-2: whether this runner may claim a pending run now; a run that may not stays pending for a later drain. */
export async function claimableHere(deps: GatePorts, queue: Pick<RunQueue, "publish">, run: WorkflowRunRecord): Promise<boolean> {
  if (!(await predecessorsDone(deps, queue, run))) return false;
  if (await elsewhere(deps, run)) return false; // its task's runner claims it
  if (await keyElsewhere(deps, run)) return false; // a runner with the credential's key claims it
  if (await targetBusy(deps, run)) return false; // claimed when that turn ends
  return true;
}

/**
 * A session action acts where the task's files are: a run of a task whose environment lives
 * on another runner is left to that runner (the relayed `workflow.run` frame wakes it).
 */
async function elsewhere(deps: GatePorts, run: WorkflowRunRecord): Promise<boolean> {
  if (!AT_THE_TASK.has(run.action.action)) return false;
  const env = await deps.store.getEnvironmentByTask(run.taskId);
  return env !== undefined && env.runnerId !== deps.runnerId;
}

/**
 * RUN-18 for workflow runs: an issue action opens the repository's stored credential, which
 * only a runner holding the key it was sealed with can open; a runner with another key leaves
 * the run pending for one that has it (its claim would fail the run with `credential_unreadable`).
 */
async function keyElsewhere(deps: GatePorts, run: WorkflowRunRecord): Promise<boolean> {
  const a = run.action;
  if (!WITH_CREDENTIAL.has(a.action) || !("repositoryId" in a)) return false;
  const keyId = (await deps.store.placement.credentialKeyIds([a.repositoryId])).get(a.repositoryId);
  // No stored credential, or one sealed before key ids were recorded: any runner tries.
  return keyId !== undefined && keyId !== null && keyId !== credentialKeyIdOf(deps);
}

/**
 * Runs that wait, unclaimed, while the task's agent is in a turn; the turn's end drains the
 * queue again. WF-2.19: a review comment for the working session (a prompt would be refused).
 */
async function targetBusy(deps: GatePorts, run: WorkflowRunRecord): Promise<boolean> {
  // WF-2.20: the base is brought in only while no agent of the task is in a turn (it would change files under it).
  if (run.action.action === "update_base" && run.state === "pending") return (await deps.store.listSessions(run.taskId)).some((s) => BUSY.has(s.state));
  if (run.action.action !== "pr_comment" || run.action.agent) return false;
  const s = await workingSession(deps, run.taskId);
  return s !== undefined && BUSY.has(s.state);
}

/**
 * Earlier onEnter actions of the same entry must have ended well; after a failed one the rest
 * is cancelled. A transition (an outcome's move, index {@link TRANSITION_INDEX} and up) is what
 * an ended action asked for, failed ones included: it waits for nothing.
 */
async function predecessorsDone(deps: GatePorts, queue: Pick<RunQueue, "publish">, run: WorkflowRunRecord): Promise<boolean> {
  // WF-2.19: a task's review comments go one at a time, in the order they were seen.
  if (run.cause === REVIEW_COMMENT_CAUSE) {
    const before = (r: WorkflowRunRecord) => r.createdAt < run.createdAt || (r.createdAt === run.createdAt && r.actionIndex < run.actionIndex);
    return (await deps.store.workflows.listRuns(run.taskId)).every(
      (r) => r.id === run.id || r.cause !== REVIEW_COMMENT_CAUSE || !before(r) || !ACTIVE_RUN_STATES.includes(r.state),
    );
  }
  if (run.entryId === null || run.actionIndex === 0 || run.actionIndex >= TRANSITION_INDEX) return true;
  const earlier = (await deps.store.workflows.runsOfEntry(run.entryId)).filter((r) => r.actionIndex < run.actionIndex);
  if (earlier.some((r) => r.state === "failed" || r.state === "cancelled")) {
    const c = await deps.store.workflows.finish(run.id, "cancelled", "an earlier action of the step did not succeed", deps.now(), ["pending"]);
    if (c) queue.publish(c);
    return false;
  }
  return earlier.every((r) => r.state === "succeeded" || r.state === "skipped");
}
