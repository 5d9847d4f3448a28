import { existsSync } from "node:fs";
import { realpath } from "node:fs/promises";
import { isAbsolute, relative, resolve, sep } from "node:path";
import type { Changes, FileDiff } from "@grove/protocol";
import { AppError } from "../domain/errors.js";
import type { EnvironmentRepoRecord } from "../domain/records.js";
import { computeChanges, fileDiff } from "../git/changes.js";
import { resolveBaseRef } from "../git/repository.js";
import type { Deps } from "./context.js";
import { isRemoteRepository } from "./refresh-remote.js";
import { getTaskOr404 } from "./tasks.js";

/**
 * What a slot's Changes are compared with: the base name for a local checkout; for a remote
 * repository the fetched `origin/<base>` (its managed clone's local branch is never refreshed,
 * and may not exist at all).
 */
async function baseRefOf(deps: Deps, row: EnvironmentRepoRecord): Promise<string> {
  const repo = await deps.store.getRepository(row.repositoryId);
  if (!repo || !isRemoteRepository(repo) || !row.worktreePath) return row.baseBranch;
  return resolveBaseRef(deps.git, row.worktreePath, row.baseBranch, { preferRemote: true });
}

async function activeRows(deps: Deps, taskId: string): Promise<EnvironmentRepoRecord[]> {
  const env = await deps.store.getEnvironmentByTask(taskId);
  if (!env) return [];
  return (await deps.store.listEnvironmentRepos(env.id)).filter((r) => r.status === "active" && r.worktreePath && r.worktreeBranch);
}

/**
 * CHG-1 / CHG-4: the Changes of a task are computed in its persisted worktree paths, never
 * in a source checkout. A slot whose worktree is unreadable reports its error, not emptiness.
 */
export async function taskChanges(deps: Deps, taskId: string): Promise<Changes> {
  await getTaskOr404(deps, taskId);
  const rows = await activeRows(deps, taskId);
  const repositories = await Promise.all(
    rows.map(async (r) => {
      const worktreePath = r.worktreePath ?? "";
      try {
        const c = await computeChanges(deps.git, { worktreePath, baseBranch: await baseRefOf(deps, r) });
        return { repositoryId: r.repositoryId, worktreeId: r.worktreeId ?? undefined, branchSlug: r.branchSlug, worktreePath, ...c, baseBranch: r.baseBranch };
      } catch (e) {
        return {
          repositoryId: r.repositoryId,
          worktreeId: r.worktreeId ?? undefined,
          branchSlug: r.branchSlug,
          worktreePath,
          branch: r.worktreeBranch ?? "",
          baseBranch: r.baseBranch,
          mergeBase: null,
          ahead: 0,
          behind: 0,
          files: [],
          error: e instanceof Error ? e.message : String(e),
          missing: !existsSync(worktreePath),
        };
      }
    }),
  );
  return { taskId, repositories };
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
export async function taskFileDiff(deps: Deps, taskId: string, repositoryId: string, path: string, worktreeId?: string): Promise<FileDiff> {
  await getTaskOr404(deps, taskId);
  // A repository attached on several branches has several slots: `worktreeId` picks one.
  const row = (await activeRows(deps, taskId)).find((r) => r.repositoryId === repositoryId && (worktreeId === undefined || r.worktreeId === worktreeId));
  if (!row || !row.worktreePath) throw new AppError("not_found", `task ${taskId} has no worktree for repository ${repositoryId}`, { repositoryId });
  const rel = await confinePath(row.worktreePath, path);
  const d = await fileDiff(deps.git, { worktreePath: row.worktreePath, baseBranch: await baseRefOf(deps, row), path: rel });
  return { repositoryId, path: rel, ...d };
}
