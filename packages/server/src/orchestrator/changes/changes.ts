import { realpath } from "node:fs/promises";
import { isAbsolute, relative, resolve, sep } from "node:path";
import type { Changes, DiffScope, FileDiff, RepositoryChanges, WorktreeState } from "@grove/protocol";
import { AppError } from "../../domain/errors.js";
import type { EnvironmentRepoRecord } from "../../domain/records.js";
import { computeChanges, fileDiff } from "../../git/changes.js";
import { resolveBaseRef } from "../../git/repository.js";
import type { PinnedWorktree } from "../../git/worktree-link.js";
import type { Deps } from "../context.js";
import { recordDiffStat } from "./diff-stat.js";
import { isRemoteRepository } from "../refresh/refresh-remote.js";
import { getTaskOr404 } from "../tasks/tasks.js";
import { checkSlotOnDisk, restoreCommand, reuseAction, tamperedAction } from "../worktrees/workspace-check.js";
import { getRepositoryOnThisRunner } from "../refresh/repository-on-runner.js";

/**
 * What a slot's Changes are compared with: the base name for a local checkout; for a remote
 * repository the fetched `origin/<base>` (its managed clone's local branch is never refreshed,
 * and may not exist at all).
 */
async function baseRefOf(deps: Pick<Deps, "store" | "git">, row: EnvironmentRepoRecord, worktree: PinnedWorktree): Promise<string> {
  const repo = await deps.store.getRepository(row.repositoryId);
  if (!repo || !isRemoteRepository(repo)) return row.baseBranch;
  return resolveBaseRef(deps.git, worktree, row.baseBranch, { preferRemote: true });
}

async function activeRows(deps: Pick<Deps, "store">, taskId: string): Promise<EnvironmentRepoRecord[]> {
  const env = await deps.store.getEnvironmentByTask(taskId);
  if (!env) return [];
  return (await deps.store.listEnvironmentRepos(env.id)).filter((r) => r.status === "active" && r.worktreePath && r.worktreeBranch);
}

/** A slot whose Changes cannot be computed: typed, with the action that fixes it (seed 000). */
function unavailable(r: EnvironmentRepoRecord, status: Exclude<WorktreeState, "ok">, errorCode: string, error: string, action: string): RepositoryChanges {
  return {
    repositoryId: r.repositoryId,
    ...(r.worktreeId ? { worktreeId: r.worktreeId } : {}),
    branchSlug: r.branchSlug,
    worktreePath: r.worktreePath ?? "",
    branch: r.worktreeBranch ?? "",
    baseBranch: r.baseBranch,
    mergeBase: null,
    ahead: 0,
    behind: 0,
    files: [],
    status,
    errorCode,
    error,
    action,
  };
}

/** One slot's Changes, or why there are none: never a raw spawn error for a missing worktree. */
async function slotChanges(
  deps: Pick<Deps, "store" | "git" | "worktrees" | "home" | "remote">,
  taskId: string,
  r: EnvironmentRepoRecord,
): Promise<RepositoryChanges> {
  const restore = `run \`${restoreCommand(taskId)}\` (or prompt a session of the task): the worktree is recreated in place on its branch`;
  if (!r.worktreeId || !r.worktreePath || !r.worktreeBranch) {
    return unavailable(
      r,
      "no_identity",
      "workspace_missing",
      `repository slot ${r.repositoryId}/${r.branchSlug || "(flat)"} has no recorded worktree`,
      `reset the task's environment (POST /tasks/${taskId}/environment/reset); Grove never guesses a worktree from the filesystem`,
    );
  }
  if (r.status === "deleted")
    return unavailable(r, "missing", "workspace_missing", `the worktree ${r.worktreePath} was removed by an archive or reset`, restore);
  const repo = await getRepositoryOnThisRunner(deps, r.repositoryId);
  if (!repo)
    return unavailable(
      r,
      "no_identity",
      "workspace_missing",
      `repository ${r.repositoryId} is no longer registered`,
      "register the repository again or delete the task",
    );
  const disk = await checkSlotOnDisk(deps, { repoPath: repo.path, worktreePath: r.worktreePath, branch: r.worktreeBranch });
  if (disk.state === "missing") return unavailable(r, "missing", "workspace_missing", `the worktree ${r.worktreePath} does not exist`, restore);
  if (disk.state === "foreign") {
    return unavailable(
      r,
      "foreign",
      "workspace_reuse_unsafe",
      disk.message,
      reuseAction(disk.reason, { taskId, worktreePath: r.worktreePath, branch: r.worktreeBranch }),
    );
  }
  // SBX-4: a redirected `.git` is reported, and no git runs in the worktree.
  if (disk.state === "tampered") return unavailable(r, "tampered", "workspace_tampered", disk.message, tamperedAction(taskId));
  const base = { repositoryId: r.repositoryId, worktreeId: r.worktreeId, branchSlug: r.branchSlug, worktreePath: r.worktreePath };
  try {
    const worktree = await deps.worktrees.pin({ repoPath: repo.path, worktreePath: r.worktreePath });
    const c = await computeChanges(deps.git, { worktreePath: worktree, baseBranch: await baseRefOf(deps, r, worktree) });
    return { ...base, ...c, baseBranch: r.baseBranch, status: "ok" };
  } catch (e) {
    // SBX-4.7: git was stopped on a FIFO planted in the worktree's git files.
    if (e instanceof AppError && e.code === "workspace_tampered") return unavailable(r, "tampered", "workspace_tampered", e.message, String(e.details?.action));
    return {
      ...unavailable(r, "missing", "git_failed", e instanceof Error ? e.message : String(e), "see the server log; the worktree is on disk"),
      status: "ok",
    };
  }
}

/** The ports (orchestrator/context.ts) taskChanges uses. */
export type TaskChangesPorts = Pick<Deps, "store" | "git" | "worktrees" | "log" | "home" | "now" | "remote">;

/**
 * CHG-1 / CHG-4 / seed 000: the Changes of a task are computed in its persisted worktree paths,
 * never in a source checkout, and fail closed per repository: every row of the environment is
 * reported (`status` ok | missing | foreign | no_identity, with `errorCode` and `action`), so an
 * empty list means "no environment yet", never "unknown".
 */
export async function taskChanges(deps: TaskChangesPorts, taskId: string): Promise<Changes> {
  await getTaskOr404(deps, taskId);
  const env = await deps.store.getEnvironmentByTask(taskId);
  if (!env) return { taskId, repositories: [] };
  const rows = [...(await deps.store.listEnvironmentRepos(env.id))].sort((a, b) => a.position - b.position);
  const changes: Changes = { taskId, repositories: await Promise.all(rows.map((r) => slotChanges(deps, taskId, r))) };
  await recordDiffStat(deps, changes);
  return changes;
}

/**
 * SEC-2: a request path must stay inside the worktree after resolving symlinks. Relative paths
 * only; `..` escapes, absolute paths and symlinks pointing outside are `400`.
 */
export async function confinePath(worktreePath: string, requested: string): Promise<string> {
  const bad = (why: string) => new AppError("path_outside_worktree", `path ${JSON.stringify(requested)} ${why}`, { field: "path" });
  if (requested === "" || requested.includes("\0")) throw bad("is empty or holds a NUL byte");
  if (isAbsolute(requested)) throw bad("must be relative to the worktree");
  const root = await realpath(worktreePath);
  const lexical = resolve(root, requested);
  if (lexical !== root && !lexical.startsWith(root + sep)) throw bad("escapes the worktree");
  // Resolve symlinks on the deepest existing ancestor (a deleted file has none of its own).
  let probe = lexical;
  for (;;) {
    try {
      const real = await realpath(probe);
      if (real !== root && !real.startsWith(root + sep)) throw bad("resolves outside the worktree");
      break;
    } catch (e) {
      if (e instanceof AppError) throw e;
      const parent = resolve(probe, "..");
      if (parent === probe) break;
      probe = parent;
    }
  }
  const rel = relative(root, lexical);
  if (rel === "" || rel.startsWith("..")) throw bad("does not name a file in the worktree");
  return rel.split(sep).join("/");
}

/** CHG-2: one file's patch against the merge-base, uncommitted and untracked content included. */
export async function taskFileDiff(
  deps: Pick<Deps, "store" | "git" | "worktrees" | "home" | "remote">,
  taskId: string,
  repositoryId: string,
  path: string,
  worktreeId?: string,
  scope?: DiffScope,
): Promise<FileDiff> {
  await getTaskOr404(deps, taskId);
  // A repository attached on several branches has several slots: `worktreeId` picks one.
  const row = (await activeRows(deps, taskId)).find((r) => r.repositoryId === repositoryId && (worktreeId === undefined || r.worktreeId === worktreeId));
  if (!row || !row.worktreePath) throw new AppError("not_found", `task ${taskId} has no worktree for repository ${repositoryId}`, { repositoryId });
  const repo = await getRepositoryOnThisRunner(deps, row.repositoryId);
  if (!repo) throw new AppError("not_found", `repository ${repositoryId} is no longer registered`, { repositoryId });
  const rel = await confinePath(row.worktreePath, path);
  // SBX-4: pinned to the recorded git dir; a redirected `.git` is `workspace_tampered`.
  const worktree = await deps.worktrees.pin({ repoPath: repo.path, worktreePath: row.worktreePath });
  const d = await fileDiff(deps.git, { worktreePath: worktree, baseBranch: await baseRefOf(deps, row, worktree), path: rel, ...(scope ? { scope } : {}) });
  return { repositoryId, path: rel, ...(scope ? { scope } : {}), ...d };
}
