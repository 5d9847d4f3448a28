import { realpath } from "node:fs/promises";
import { join, resolve, sep } from "node:path";
import { AppError } from "../../domain/errors.js";
import type { RepositoryInfo } from "../../git/repository.js";
import type { Deps } from "../context.js";
import { repositoryPathOnThisRunner } from "../refresh/repository-on-runner.js";

function inside(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith(sep) ? dir : dir + sep);
}

async function real(path: string): Promise<string> {
  return realpath(path).catch(() => path);
}

/**
 * Linked worktrees (not the main checkout) of a registered repository, as its admin dirs record
 * them (no git process per registered repository on every registration); none if it cannot be read.
 */
async function linkedWorktrees(deps: Pick<Deps, "worktrees">, repoPath: string): Promise<string[]> {
  try {
    return await Promise.all((await deps.worktrees.linkedPaths(repoPath)).map(real));
  } catch {
    return []; // a vanished or broken checkout has no worktrees to protect
  }
}

/**
 * SEC-3: a local checkout may not be registered from inside Grove's own state or inside a
 * worktree of a registered repository: archiving that task would remove the other
 * repository's checkout (`path_is_worktree`), and GROVE_HOME holds task worktrees and managed
 * clones Grove deletes on its own (`path_inside_grove_home`). Read-only.
 */
export async function assertRegistrablePath(deps: Pick<Deps, "store" | "worktrees" | "home" | "remote">, info: RepositoryInfo): Promise<void> {
  for (const repo of await deps.store.listRepositories()) {
    for (const wt of await linkedWorktrees(deps, repositoryPathOnThisRunner(deps, repo))) {
      if (inside(info.path, wt)) {
        throw new AppError("path_is_worktree", `${info.path} lies inside ${wt}, a worktree of repository ${repo.name}`, {
          field: "path",
          repositoryId: repo.id,
        });
      }
    }
  }
  const home = await real(deps.home);
  if (inside(info.path, home)) throw new AppError("path_inside_grove_home", `${info.path} lies inside GROVE_HOME (${home})`, { field: "path" });
}

/**
 * SEC-3 / SBX-4, before any git runs on the path: anything under `GROVE_HOME/tasks` is a task's
 * worktree (or lies in one), never registrable — and Grove's git runs there only pinned to a
 * recorded git dir, so it is refused without asking git.
 */
export async function assertNotInTaskWorktrees(deps: Pick<Deps, "home">, path: string): Promise<void> {
  const tasks = await real(join(deps.home, "tasks"));
  const at = await real(resolve(path));
  if (inside(at, tasks)) throw new AppError("path_is_worktree", `${path} lies inside Grove's task worktrees (${tasks})`, { field: "path" });
}
