import { AppError } from "../../domain/errors.js";
import type { EnvironmentRepoRecord, RepositoryRecord, TaskRecord, TaskRepositoryRecord } from "../../domain/records.js";
import { resolveBaseRef } from "../../git/repository.js";
import type { Deps } from "../context.js";
import { isRemoteRepository } from "../refresh/refresh-remote.js";
import { getTaskOr404 } from "../tasks/tasks.js";
import { getRepositoryOnThisRunner } from "../refresh/repository-on-runner.js";
import { pinSlot } from "../worktrees/workspace-check.js";
import type { PinnedWorktree } from "../../git/worktree-link.js";

/** One repository of a task as the review actions see it: its attachment, row and worktree. */
export interface ReviewSlot {
  task: TaskRecord;
  repository: RepositoryRecord;
  attachment: TaskRepositoryRecord;
  row: EnvironmentRepoRecord;
  worktreePath: string;
  /** SBX-4: where every git call of the review runs (the recorded git dir, never the worktree's `.git`). */
  worktree: PinnedWorktree;
  branch: string;
  /** The ref the task branch is compared with: `origin/<base>` for a remote repository's clone. */
  baseRef: string;
}

/** Scope ids every review error carries (task, repository, and session when there is one). */
export function scopeOf(slot: { task: { id: string }; repository: { id: string } }, sessionId?: string): Record<string, string> {
  return { taskId: slot.task.id, repositoryId: slot.repository.id, ...(sessionId ? { sessionId } : {}) };
}

async function activeRows(deps: Pick<Deps, "store">, taskId: string): Promise<EnvironmentRepoRecord[]> {
  const env = await deps.store.getEnvironmentByTask(taskId);
  if (!env) return [];
  return (await deps.store.listEnvironmentRepos(env.id)).filter((r) => r.status === "active" && r.worktreePath && r.worktreeBranch);
}

/**
 * The task's slots for `repositoryId` (or all of them): a repository the task does not have
 * is `notAttached()` (a 400 of the caller's choosing); a repository without a live worktree is
 * `409 workspace_missing` — review acts on the worktree, never on the person's checkout.
 */
export async function reviewSlots(
  deps: Pick<Deps, "store" | "git" | "worktrees" | "home" | "remote">,
  taskId: string,
  repositoryId: string | undefined,
  notAttached: (id: string) => AppError,
): Promise<ReviewSlot[]> {
  const task = await getTaskOr404(deps, taskId);
  if (repositoryId !== undefined && !task.repositories.some((a) => a.repositoryId === repositoryId)) throw notAttached(repositoryId);
  const rows = await activeRows(deps, taskId);
  const out: ReviewSlot[] = [];
  for (const att of task.repositories) {
    if (repositoryId !== undefined && att.repositoryId !== repositoryId) continue;
    const repository = await getRepositoryOnThisRunner(deps, att.repositoryId);
    const row =
      rows.find((r) => r.repositoryId === att.repositoryId && r.baseBranch === att.baseBranch) ?? rows.find((r) => r.repositoryId === att.repositoryId);
    if (!repository || !row?.worktreePath || !row.worktreeBranch) {
      throw new AppError("workspace_missing", `task ${taskId} has no worktree for repository ${att.repositoryId}; start a session first`, {
        taskId,
        repositoryId: att.repositoryId,
      });
    }
    if (out.some((s) => s.row.id === row.id)) continue;
    // SBX-4: a redirected `.git` refuses the whole action before anything runs.
    const worktree = await pinSlot(deps, { taskId, repositoryId: att.repositoryId, repoPath: repository.path, worktreePath: row.worktreePath });
    const baseRef = isRemoteRepository(repository) ? await resolveBaseRef(deps.git, worktree, att.baseBranch, { preferRemote: true }) : att.baseBranch;
    out.push({ task, repository, attachment: att, row, worktreePath: row.worktreePath, worktree, branch: row.worktreeBranch, baseRef });
  }
  return out;
}

/** Exactly one slot (the repository given, else the task's only repository). */
export async function reviewSlot(
  deps: Pick<Deps, "store" | "git" | "worktrees" | "home" | "remote">,
  taskId: string,
  repositoryId: string,
  notAttached: (id: string) => AppError,
): Promise<ReviewSlot> {
  const [slot] = await reviewSlots(deps, taskId, repositoryId, notAttached);
  if (!slot) throw notAttached(repositoryId);
  return slot;
}

/** The standard "not a repository of this task" refusal. */
export function notAttachedError(field = "repositoryId") {
  return (id: string) => new AppError("invalid_request", `repository ${id} is not attached to this task`, { field, repositoryId: id });
}
