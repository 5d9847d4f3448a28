import type { CleanupJobRecord } from "../../domain/cleanup-job.js";
import { AppError, isAppError } from "../../domain/errors.js";
import type { TaskRecord } from "../../domain/records.js";
import type { CleanupWorker } from "../lifecycle/cleanup-worker.js";
import { requestCleanup, type RequestCleanupPorts } from "../lifecycle/lifecycle.js";
import type { Deps } from "../context.js";
import { getTaskOr404 } from "../tasks/tasks.js";
import { SUBTASK_LIMITS, childrenOf } from "./subtasks.js";

/** What becomes of a task's open subtasks when it is archived (MCP-3.7). */
export type ChildrenChoice = "archive" | "keep";

export interface ArchiveSubtreeDeps {
  deps: RequestCleanupPorts;
  worker: CleanupWorker;
  /** The runner guard: a task whose runner is offline cannot be archived (`runner_offline`). */
  assertReachable(taskId: string): Promise<void>;
  /** MCP-1.3: an archived task's sessions lose their MCP tokens. */
  revoke(taskId: string): void;
}

/** An open subtask and how far below the archived task it sits (1 = a direct subtask). */
interface OpenSubtask {
  task: TaskRecord;
  depth: number;
}

/**
 * MCP-3.7: archive a task and, on request, its open subtasks.
 *
 * The open subtasks are every subtask at any depth that is not archived (an archived subtask's
 * own open subtasks included). Without `children`, a task that has any is refused
 * (`409 task_has_children`, `details.children`) and nothing is written. `keep` archives the task
 * alone (its subtasks keep their parent link); `archive` archives the whole open subtree.
 *
 * Every task's own archive preconditions (its runner reachable, not archived, no cleanup job
 * active) are checked for the whole tree before the first job is reserved, so a subtask that
 * cannot be archived refuses the request with nothing written. Then each task gets the ordinary
 * durable archive job (LC-2, `requestCleanup`), deepest first and the task itself last: a parent
 * is never archived over an open subtask. A crash in between leaves the deeper tasks archived
 * with their jobs; the same request again finishes the rest (an archived subtask is no longer
 * open, so it never gets a second job). The checks and the reservations are not one
 * transaction: a subtask changed by someone else in between refuses at its own reservation (each
 * reservation is the usual compare-and-set), with the deeper tasks already archived and the
 * task itself untouched.
 */
export async function archiveWithSubtasks(d: ArchiveSubtreeDeps, taskId: string, children: ChildrenChoice | undefined): Promise<CleanupJobRecord> {
  const task = await getTaskOr404(d.deps, taskId);
  // The task's own refusals first: an archived task is `task_archived`, whatever lies below it.
  await assertArchivable(d, task.id, undefined);
  const open = await openSubtasks(d.deps, task.id);
  if (open.length > 0 && children === undefined) {
    const n = open.length;
    throw new AppError(
      "task_has_children",
      `task ${task.id} has ${n} open subtask${n === 1 ? "" : "s"} (${open.map((o) => o.task.id).join(", ")}); archive them too (children: "archive") or only this task (children: "keep")`,
      { taskId: task.id, children: open.map((o) => o.task.id) },
    );
  }
  const below = children === "archive" ? deepestFirst(open) : [];
  for (const o of below) await assertArchivable(d, o.task.id, task.id);

  for (const o of below) {
    await requestCleanup(d.deps, d.worker, o.task.id, "archive");
    d.revoke(o.task.id);
  }
  const job = await requestCleanup(d.deps, d.worker, task.id, "archive");
  d.revoke(task.id);
  return job;
}

/** The open subtasks below `taskId`, each listed before its own subtasks. */
async function openSubtasks(deps: Pick<Deps, "store">, taskId: string): Promise<OpenSubtask[]> {
  const found: OpenSubtask[] = [];
  const seen = new Set<string>([taskId]);
  const walk = async (parentId: string, depth: number): Promise<void> => {
    // The tree is at most SUBTASK_LIMITS.depth deep; the bound (and `seen`) only guard against a
    // damaged parent link looping.
    if (depth > SUBTASK_LIMITS.depth + 1) return;
    for (const child of await childrenOf(deps, parentId)) {
      if (seen.has(child.id)) continue;
      seen.add(child.id);
      if (child.archivedAt === null) found.push({ task: child, depth });
      await walk(child.id, depth + 1);
    }
  };
  await walk(taskId, 1);
  return found;
}

/** Deepest level first; within a level, the tree's order (oldest first). */
function deepestFirst(open: OpenSubtask[]): OpenSubtask[] {
  return open
    .map((o, i) => ({ o, i }))
    .sort((a, b) => b.o.depth - a.o.depth || a.i - b.i)
    .map(({ o }) => o);
}

/**
 * The checks `requestCleanup(…, "archive")` makes when it reserves the job, made up front for
 * one task of the tree. A subtask's refusal names it and the task whose archive asked.
 */
async function assertArchivable(d: ArchiveSubtreeDeps, taskId: string, subtaskOf: string | undefined): Promise<void> {
  try {
    await d.assertReachable(taskId);
    const task = await getTaskOr404(d.deps, taskId);
    if (task.archivedAt !== null) throw new AppError("task_archived", `task ${taskId} is archived`, { taskId });
    const job = await d.deps.store.activeCleanupJob(taskId);
    if (job)
      throw new AppError("task_cleanup_in_progress", `a ${job.trigger} cleanup of task ${taskId} is ${job.state}`, { taskId, jobId: job.id, state: job.state });
  } catch (e) {
    if (subtaskOf === undefined || !isAppError(e)) throw e;
    throw new AppError(e.code, `subtask ${taskId} of task ${subtaskOf} cannot be archived, so nothing was archived: ${e.message}`, {
      ...e.details,
      taskId,
      subtaskOf,
    });
  }
}
