import type { Session } from "@grove/protocol";
import { type BoardStep, type TransitionOutcome, renderTemplate, stepOf } from "../../domain/workflow.js";
import type { CommandResult, WorkflowRunRecord } from "../../domain/workflow-run.js";
import type { Deps } from "../context.js";
import { templateFields } from "./workflow-actions.js";
import { commandOutcome } from "./workflow-command.js";
import { getWorkflowOr404 } from "./workflow-defs.js";
import { type RunQueue, TRANSITION_INDEX } from "./workflow-run-queue.js";

/** The ports ending a run with its outcome uses. */
export type OutcomePorts = Pick<Deps, "store" | "now">;

/**
 * WF-2.13: a `run` action's command ended. The run's end (with the exit code and output
 * excerpt) and what it implies commit together: `onSuccess.to` / `onFailure.to` as a move run
 * of the same entry, `onFailure.prompt` (rendered now, with the output) as a prompt run of the
 * target step that outlives the move, so its turn's outcome drives that step's transitions.
 */
export async function commandEnded(deps: OutcomePorts, queue: RunQueue, run: WorkflowRunRecord, r: CommandResult): Promise<void> {
  if (run.action.action !== "run") return;
  const a = run.action;
  const ok = r.exitCode === 0 && !r.timedOut;
  const to = (ok ? a.onSuccess?.to : a.onFailure?.to) as BoardStep | undefined;
  const outcome = `${commandOutcome(r, a.timeoutSeconds)}${to ? ` → ${to}` : ""}`;
  const task = await deps.store.getTask(run.taskId);
  const text =
    !ok && a.onFailure?.prompt && task
      ? renderTemplate(a.onFailure.prompt, {
          ...(await templateFields(deps, task, to ?? run.step)),
          command: a.command,
          exitCode: r.exitCode === null ? (r.timedOut ? "timeout" : "none") : String(r.exitCode),
          output: r.output,
        })
      : undefined;
  const base = { taskId: run.taskId, workflow: run.workflow, version: run.version, cause: ok ? "command_succeeded" : "command_failed" };
  const done = await deps.store.transaction(async () => {
    const d = await deps.store.workflows.finish(run.id, ok ? "succeeded" : "failed", outcome, deps.now(), ["running"], r);
    if (!d) return d;
    if (to)
      await queue.enqueue({
        ...base,
        idemKey: `command:${run.id}:move`,
        entryId: run.entryId,
        step: run.step,
        actionIndex: TRANSITION_INDEX + 1,
        action: { action: "move", to },
      });
    if (text)
      await queue.enqueue({
        ...base,
        idemKey: `command:${run.id}:prompt`,
        entryId: null,
        step: to ?? run.step,
        actionIndex: TRANSITION_INDEX + 2,
        action: { action: "prompt", text },
      });
    return d;
  });
  if (done) queue.publish(done);
  await queue.drain();
}

/** A turn ended: the run waiting for it ends with the turn's outcome, and the step's transition is queued. */
export async function turnEnded(deps: OutcomePorts, queue: RunQueue, session: Pick<Session, "id" | "taskId" | "state" | "lastTurn">): Promise<void> {
  const run = await deps.store.workflows.runOfSession(session.id);
  // No run waited for this turn; a review comment may have waited for the session to be free.
  if (!run) return queue.drain();
  const outcome = turnOutcome(session);
  if (outcome === "cancelled") {
    const c = await deps.store.workflows.finish(run.id, "cancelled", "the turn was cancelled", deps.now());
    if (c) queue.publish(c);
    return;
  }
  const clean = outcome === "completed" && (await deps.store.review.listComments(run.taskId)).every((c) => c.state !== "open");
  const wf = await getWorkflowOr404(deps, run.workflow).catch(() => undefined);
  const on = wf ? (stepOf(wf.definition, run.step)?.on ?? {}) : {};
  const label = clean && on.clean ? "clean" : outcome;
  const to = on[label] as BoardStep | undefined;
  // The run's end and the move it implies commit together: a crash leaves both or neither.
  const done = await deps.store.transaction(async () => {
    const d = await deps.store.workflows.finish(run.id, outcome === "completed" ? "succeeded" : "failed", `turn ${label}${to ? ` → ${to}` : ""}`, deps.now());
    if (d && to)
      await queue.enqueue({
        idemKey: `turn:${run.id}`,
        taskId: run.taskId,
        entryId: run.entryId,
        workflow: run.workflow,
        version: run.version,
        step: run.step,
        actionIndex: TRANSITION_INDEX,
        action: { action: "move", to },
        cause: `turn_${label}`,
      });
    return d;
  });
  if (done) queue.publish(done);
  await queue.drain();
}

function turnOutcome(s: Pick<Session, "state" | "lastTurn">): TransitionOutcome | "cancelled" {
  const o = s.lastTurn?.outcome;
  if (o === "cancelled" || o === "interrupted") return "cancelled";
  if (o === "stalled") return "stalled";
  if (o === "completed" && s.state !== "failed") return "completed";
  return "failed";
}
