import type {
  CreatePullRequestBody,
  CreateSessionBody,
  CreateTaskBody,
  PullRequest,
  SendConflictsBody,
  UpdateFromBaseBody,
  UpdateResult,
  UpdateStepBody,
} from "@grove/protocol";
import type { CleanupJobRecord } from "../../domain/cleanup-job.js";
import { AppError, isAppError } from "../../domain/errors.js";
import { newId } from "../../domain/ids.js";
import type { SessionRecord, TaskRecord } from "../../domain/records.js";
import { type BoardStep, type CreateTaskAction, type PullRequestAction, renderTemplate } from "../../domain/workflow.js";
import type { CommandResult, WorkflowRunRecord } from "../../domain/workflow-run.js";
import type { Deps } from "../context.js";
import { faultPoint } from "../fault-points.js";
import { startCommand } from "./workflow-command.js";
import { closeIssue, commentOnIssue } from "./workflow-issue-actions.js";
import { automatedMove } from "./workflow-moves.js";

/** What the actions need of the orchestrator (its use cases, with their guards and slots). */
export interface WorkflowPorts {
  startSession(taskId: string, body: CreateSessionBody, opts: { sessionId: string }): Promise<SessionRecord>;
  promptComments(sessionId: string, commentIds: string[], prompt?: string): Promise<SessionRecord>;
  prompt(sessionId: string, text: string): Promise<SessionRecord>;
  cancelTurn(sessionId: string): Promise<unknown>;
  /** Failed checks and unresolved provider comments of the task's pull requests → the session, one prompt. */
  sendFeedback(taskId: string, sessionId: string): Promise<SessionRecord>;
  /** Creates a task with the id the run planned, in the step the trigger names (its `task.created` frame included). */
  createTask(body: CreateTaskBody, opts: { id: string; state: BoardStep }): Promise<TaskRecord>;
  /** Opens the task's pull requests or pushes to the open ones (the review code's own path); `forcePush: false` refuses a rewritten branch. */
  pullRequest(taskId: string, body: CreatePullRequestBody, opts: { forcePush: boolean }): Promise<PullRequest[]>;
  /** LC-2's durable archive of the task (agents stopped, uncommitted work saved); a task with open subtasks is refused. */
  archiveTask(taskId: string): Promise<CleanupJobRecord>;
  /** WF-2.20: the review code's update from base (its LIVE-4 inbox item for kept conflicts included), abort, and conflicts → a session. */
  updateFromBase(taskId: string, body: UpdateFromBaseBody): Promise<UpdateResult>;
  abortUpdate(taskId: string, body: UpdateStepBody): Promise<UpdateResult>;
  sendConflicts(taskId: string, body: SendConflictsBody): Promise<SessionRecord>;
}

/** How an executed action ended: done now, waiting for the turn it started, or for the command it started (WF-2.13). */
export type ActionResult =
  | { state: "succeeded" | "skipped" | "failed"; outcome: string }
  | { state: "waiting"; sessionId: string }
  | { state: "command"; done: Promise<CommandResult> };

/** Sessions that are not idle: a turn is under way (or the agent is starting). */
export const BUSY = new Set(["starting", "running"]);

/** The ports (orchestrator/context.ts) executeAction uses. */
export type ExecuteActionPorts = Pick<Deps, "store" | "git" | "worktrees" | "profiles" | "bus" | "log" | "home" | "now" | "remote" | "sandbox">;

/**
 * WF-2: runs one claimed action. Every action is idempotent over a redo after a crash: a move
 * whose target is reached is done, a start finds the session planned before it was created,
 * comments already sent are not sent again.
 */
export async function executeAction(deps: ExecuteActionPorts, ports: WorkflowPorts, run: WorkflowRunRecord): Promise<ActionResult> {
  if (run.action.action === "create_task") return createTask(deps, ports, run, run.action);
  if (run.action.action === "issue_comment") return commentOnIssue(deps, run.action, run.taskId);
  if (run.action.action === "issue_close") return closeIssue(deps, run.action);
  if (run.action.action === "archive") return archiveTask(deps, ports, run, run.action.afterDays);
  const task = await deps.store.getTask(run.taskId);
  if (!task || task.archivedAt) return { state: "skipped", outcome: "the task is archived or gone" };
  const latest = await deps.store.workflows.latestEntry(run.taskId);
  if (run.entryId !== null && latest?.id !== run.entryId) return { state: "skipped", outcome: "the task moved on" };
  const a = run.action;
  switch (a.action) {
    case "move":
      return move(deps, task, a.to as BoardStep);
    case "start_session":
      return startSession(deps, ports, run, task, a.agent, async () => renderTemplate(a.prompt, await templateFields(deps, task, run.step)));
    case "pr_comment":
      // WF-2.19: its prompt was rendered when the comment was seen; a template in the comment's text stays text.
      return a.agent ? startSession(deps, ports, run, task, a.agent, async () => a.text) : sendPrompt(deps, ports, run, task, a.text);
    case "send_comments":
      return sendComments(deps, ports, run, task, a.prompt);
    case "send_checks":
      return sendChecks(deps, ports, run, task);
    case "run":
      return startCommand(deps, run, task, a, (taskId) => workingSession(deps, taskId));
    case "prompt":
      return sendPrompt(deps, ports, run, task, a.text);
    case "pr":
      return pullRequest(deps, ports, run, task, a);
    case "update_base":
      // WF-2.20: executed by the engine (workflow-base-actions.ts), which builds on this file's helpers.
      throw new AppError("internal_error", `workflow run ${run.id}: update_base is not an action of this file`);
  }
}

/**
 * WF-2: a trigger's task. The run was queued with the task's id (its key claimed first), so a
 * redo after a crash finds the task it created instead of creating a second one.
 */
async function createTask(deps: Pick<Deps, "store">, ports: WorkflowPorts, run: WorkflowRunRecord, a: CreateTaskAction): Promise<ActionResult> {
  if (await deps.store.getTask(run.taskId)) return { state: "succeeded", outcome: `created task ${run.taskId}` };
  try {
    await ports.createTask(
      { title: a.title, ...(a.brief ? { description: a.brief } : {}), repositories: [{ repositoryId: a.repositoryId }] },
      { id: run.taskId, state: a.step },
    );
  } catch (e) {
    if (isAppError(e)) return { state: "failed", outcome: `${e.code}: ${e.message}` };
    throw e;
  }
  await faultPoint("workflow.after_create");
  return { state: "succeeded", outcome: `created task ${run.taskId}` };
}

/**
 * WF-2.17: archives the task once its days in the step ran out, through LC-2's archive job. A
 * redo after a crash finds the task archived, or its archive job under way, and requests no
 * second one; a task that left the step (a newer entry) is not archived.
 */
async function archiveTask(deps: Pick<Deps, "store">, ports: WorkflowPorts, run: WorkflowRunRecord, days: number): Promise<ActionResult> {
  const task = await deps.store.getTask(run.taskId);
  if (!task) return { state: "skipped", outcome: "the task is gone" };
  if (task.archivedAt) return { state: "succeeded", outcome: "archived" };
  const job = await deps.store.activeCleanupJob(task.id);
  if (job?.trigger === "archive") return { state: "succeeded", outcome: `archived (cleanup job ${job.id})` };
  const latest = await deps.store.workflows.latestEntry(task.id);
  if (latest?.id !== run.entryId || task.state !== run.step) return { state: "skipped", outcome: "the task moved on" };
  try {
    const archived = await ports.archiveTask(task.id);
    await faultPoint("workflow.after_archive");
    return { state: "succeeded", outcome: `archived after ${days} day${days === 1 ? "" : "s"} in ${run.step} (cleanup job ${archived.id})` };
  } catch (e) {
    if (isAppError(e)) return { state: "failed", outcome: `${e.code}: ${e.message}` };
    throw e;
  }
}

async function move(deps: Pick<Deps, "store" | "bus" | "now">, task: TaskRecord, to: BoardStep): Promise<ActionResult> {
  try {
    const moved = await automatedMove(deps, task, to);
    return moved ? { state: "succeeded", outcome: `moved to ${to}` } : { state: "skipped", outcome: "the task moved meanwhile" };
  } catch (e) {
    if (isAppError(e)) return { state: "failed", outcome: `${e.code}: ${e.message}` };
    throw e;
  }
}

async function startSession(
  deps: Pick<Deps, "store" | "now">,
  ports: WorkflowPorts,
  run: WorkflowRunRecord,
  task: TaskRecord,
  agent: string,
  promptOf: () => Promise<string>,
): Promise<ActionResult> {
  const planned = run.sessionId ?? (await deps.store.workflows.planSession(run.id, newId("ses"), deps.now()))?.sessionId;
  if (!planned) throw new AppError("internal_error", `workflow run ${run.id} lost its claim`);
  await faultPoint("workflow.after_plan");
  if (!(await deps.store.getSession(planned))) {
    const prompt = await promptOf();
    try {
      await ports.startSession(task.id, { agent, prompt }, { sessionId: planned });
    } catch (e) {
      if (isAppError(e)) return { state: "failed", outcome: `${e.code}: ${e.message}` };
      throw e;
    }
    await faultPoint("workflow.after_start");
  }
  return { state: "waiting", sessionId: planned };
}

/**
 * The task's working session: its newest session no workflow started (the person's), else its
 * oldest. Open comments go there (WF-2 "send open review comments to the working session").
 */
export async function workingSession(deps: Pick<Deps, "store">, taskId: string): Promise<SessionRecord | undefined> {
  const sessions = await deps.store.listSessions(taskId);
  const started = new Set((await deps.store.workflows.listRuns(taskId)).filter((r) => r.action.action === "start_session").map((r) => r.sessionId));
  const own = sessions.filter((s) => !started.has(s.id) && s.state !== "failed" && s.state !== "cancelled");
  return own.at(-1) ?? sessions[0];
}

/**
 * WF-2: whether the prompt of a redone run went out before the crash. The run recorded its
 * target session before sending (`planSession`, its `updatedAt` is that moment); a prompt that
 * went out moved that session into a turn after it: the session is still busy, or its last turn
 * ended since (a restart records the turn it cut as interrupted). Then the redo waits for that
 * turn instead of prompting a second time.
 */
export async function promptWentOut(deps: Pick<Deps, "store">, run: WorkflowRunRecord): Promise<boolean> {
  if (!run.sessionId) return false;
  const s = await deps.store.getSession(run.sessionId);
  return s !== undefined && (BUSY.has(s.state) || (s.lastTurn !== null && s.lastTurn !== undefined && s.lastTurn.at >= run.updatedAt));
}

async function sendComments(
  deps: Pick<Deps, "store" | "now">,
  ports: WorkflowPorts,
  run: WorkflowRunRecord,
  task: TaskRecord,
  extra: string | undefined,
): Promise<ActionResult> {
  if (await promptWentOut(deps, run)) return { state: "waiting", sessionId: run.sessionId! };
  const open = (await deps.store.review.listComments(task.id)).filter((c) => c.state === "open");
  const target = run.sessionId ? await deps.store.getSession(run.sessionId) : await workingSession(deps, task.id);
  if (!target) return { state: "skipped", outcome: "the task has no session to send comments to" };
  if (open.length === 0) return { state: "skipped", outcome: "no open review comments" };
  await deps.store.workflows.planSession(run.id, target.id, deps.now());
  try {
    await ports.promptComments(
      target.id,
      open.map((c) => c.id),
      extra ? renderTemplate(extra, await templateFields(deps, task, run.step)) : undefined,
    );
  } catch (e) {
    if (isAppError(e)) return { state: "failed", outcome: `${e.code}: ${e.message}` };
    throw e;
  }
  await faultPoint("workflow.after_prompt");
  return { state: "waiting", sessionId: target.id };
}

async function sendChecks(deps: Pick<Deps, "store" | "now">, ports: WorkflowPorts, run: WorkflowRunRecord, task: TaskRecord): Promise<ActionResult> {
  // A redo after the prompt went out waits for that turn rather than sending it twice.
  if (await promptWentOut(deps, run)) return { state: "waiting", sessionId: run.sessionId! };
  const target = run.sessionId ? await deps.store.getSession(run.sessionId) : await workingSession(deps, task.id);
  if (!target) return { state: "skipped", outcome: "the task has no session to send the checks to" };
  await deps.store.workflows.planSession(run.id, target.id, deps.now());
  await faultPoint("workflow.after_plan");
  try {
    await ports.sendFeedback(task.id, target.id);
  } catch (e) {
    if (isAppError(e)) return { state: "failed", outcome: `${e.code}: ${e.message}` };
    throw e;
  }
  await faultPoint("workflow.after_prompt");
  return { state: "waiting", sessionId: target.id };
}

/**
 * WF-2.13: a prompt rendered when its run was queued (a failed command's output) → the working
 * session, once: the target is recorded before the send, and a redo after the send waits for
 * that turn instead of sending again.
 */
async function sendPrompt(
  deps: Pick<Deps, "store" | "now">,
  ports: WorkflowPorts,
  run: WorkflowRunRecord,
  task: TaskRecord,
  text: string,
): Promise<ActionResult> {
  if (await promptWentOut(deps, run)) return { state: "waiting", sessionId: run.sessionId! };
  const target = run.sessionId ? await deps.store.getSession(run.sessionId) : await workingSession(deps, task.id);
  if (!target) return { state: "skipped", outcome: "the task has no session to send the prompt to" };
  await deps.store.workflows.planSession(run.id, target.id, deps.now());
  await faultPoint("workflow.after_plan");
  try {
    await ports.prompt(target.id, text);
  } catch (e) {
    if (isAppError(e)) return { state: "failed", outcome: `${e.code}: ${e.message}` };
    throw e;
  }
  await faultPoint("workflow.after_prompt");
  return { state: "waiting", sessionId: target.id };
}

/**
 * WF-2.15: opens or updates the task's pull requests through the review code: a redo after a
 * crash adopts the pull request the provider already has (the code asks before it creates), and
 * pushing the same commit twice changes nothing. Never merges; force-pushes only with `forcePush`.
 */
async function pullRequest(
  deps: Pick<Deps, "store">,
  ports: WorkflowPorts,
  run: WorkflowRunRecord,
  task: TaskRecord,
  a: PullRequestAction,
): Promise<ActionResult> {
  const fields = await templateFields(deps, task, run.step);
  const before = new Set((await deps.store.review.listPullRequests(task.id)).map((p) => `${p.repositoryId}:${p.number}`));
  try {
    const prs = await ports.pullRequest(
      task.id,
      {
        ...(a.title ? { title: renderTemplate(a.title, fields) } : {}),
        ...(a.body ? { body: renderTemplate(a.body, fields) } : {}),
        ...(a.draft !== undefined ? { draft: a.draft } : {}),
      },
      { forcePush: a.forcePush },
    );
    await faultPoint("workflow.after_pr");
    const words = prs.map((p) => `${before.has(`${p.repositoryId}:${p.number}`) ? "updated" : "opened"} #${p.number} at ${p.headCommit.slice(0, 12)}`);
    return { state: "succeeded", outcome: words.join(", ") || "no repository with a pull request" };
  } catch (e) {
    if (isAppError(e)) return { state: "failed", outcome: `${e.code}: ${e.message}` };
    throw e;
  }
}

/** The fields a prompt template may name. */
export async function templateFields(deps: Pick<Deps, "store">, task: TaskRecord, step: string, checks = ""): Promise<Record<string, string>> {
  const comments = (await deps.store.review.listComments(task.id)).filter((c) => c.state === "open");
  return {
    title: task.title,
    brief: task.description,
    step,
    comments: comments.map((c) => `${c.path}:${c.line}: ${c.body}`).join("\n"),
    checks,
  };
}
