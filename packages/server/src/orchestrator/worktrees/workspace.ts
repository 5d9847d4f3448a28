import type { WorkspaceInfo } from "@grove/protocol";
import { AppError } from "../../domain/errors.js";
import { environmentRepositoryView } from "../../domain/views.js";
import type { RepositoryRecord, SessionRecord } from "../../domain/records.js";
import { type ProjectedSlot, type ProjectedWorkspace, projectWorkspace } from "../../domain/workspace-projection.js";
import type { Deps } from "../context.js";
import { taskRoot } from "./paths.js";
import { refreshForRecreate } from "../refresh/refresh-remote.js";
import { resolveTaskRefreshRoutes, scoped, type RefreshScope } from "../refresh/refresh-routes.js";
import { checkSlotOnDisk, reuseUnsafe, tamperedSlot, type SlotDiskState } from "./workspace-check.js";
import { ensureRepositoryOnThisRunner, getRepositoryOnThisRunner } from "../refresh/repository-on-runner.js";

/** ENV-5: a session's workspace, from persisted rows only; fails closed. */
export async function projectSessionWorkspace(deps: Pick<Deps, "store" | "home">, session: SessionRecord): Promise<ProjectedWorkspace> {
  if (!session.taskEnvironmentId) throw new AppError("workspace_missing", `session ${session.id} has no environment`);
  const env = await deps.store.getEnvironment(session.taskEnvironmentId);
  if (!env || env.taskId !== session.taskId) throw new AppError("workspace_missing", `environment of session ${session.id} not found`);
  const task = await deps.store.getTask(session.taskId);
  if (!task) throw new AppError("not_found", `task ${session.taskId} not found`);
  const rows = await deps.store.listEnvironmentRepos(env.id);
  return projectWorkspace(env, rows, taskRoot(deps, task));
}

export async function workspaceInfo(deps: Pick<Deps, "store" | "home">, session: SessionRecord): Promise<WorkspaceInfo> {
  const ws = await projectSessionWorkspace(deps, session);
  return {
    taskId: session.taskId,
    sessionId: session.id,
    taskEnvironmentId: ws.environmentId,
    workspacePath: ws.workspacePath,
    repositories: ws.slots.map((s) => environmentRepositoryView(s.row)),
  };
}

/** One slot of a workspace with its repository and what is on disk at its path. */
interface CheckedSlot {
  slot: ProjectedSlot;
  repo: RepositoryRecord;
  disk: SlotDiskState;
}

/** WT-5, cheap (no network): every slot's repository and on-disk state; throws if a repository is gone. */
export async function checkWorkspace(
  deps: Pick<Deps, "store" | "worktrees" | "home" | "remote">,
  ws: ProjectedWorkspace,
  scope: RefreshScope,
): Promise<CheckedSlot[]> {
  const out: CheckedSlot[] = [];
  for (const slot of ws.slots) {
    const repo = await getRepositoryOnThisRunner(deps, slot.row.repositoryId);
    if (!repo) {
      throw new AppError("workspace_missing", `repository ${slot.row.repositoryId} of the workspace is gone`, {
        taskId: scope.taskId,
        ...(scope.sessionId ? { sessionId: scope.sessionId } : {}),
        repositoryId: slot.row.repositoryId,
      });
    }
    out.push({ slot, repo, disk: await checkSlotOnDisk(deps, { repoPath: repo.path, worktreePath: slot.worktreePath, branch: slot.worktreeBranch }) });
  }
  return out;
}

/** The ports (orchestrator/context.ts) restoreWorkspace uses. */
export type RestoreWorkspacePorts = Pick<Deps, "store" | "git" | "worktrees" | "bus" | "log" | "home" | "remote">;

/**
 * WT-5 whenever a session touches its workspace: a slot whose directory is foreign is refused
 * (`workspace_reuse_unsafe` with `details.action`) before anything changes, a tampered one
 * (SBX-4) with `workspace_tampered` — unless `repairTampered` (the person's restore), which
 * writes its `.git` link back to the recorded git dir first; when some slot is
 * missing, the refresh routes of ALL slots are resolved first (RR-4, seed 004), then each
 * missing worktree is refreshed through its route (RR-5) and recreated in place on its
 * recorded branch. Valid slots are left alone: no git mutation, no network. Returns the
 * recreated slots' repository ids.
 */
export async function restoreWorkspace(
  deps: RestoreWorkspacePorts,
  ws: ProjectedWorkspace,
  scope: RefreshScope,
  opts: { repairTampered?: boolean } = {},
): Promise<string[]> {
  let checked = await checkWorkspace(deps, ws, scope);
  for (const c of checked) {
    if (c.disk.state === "foreign") {
      throw reuseUnsafe(c.disk, { taskId: scope.taskId, repositoryId: c.repo.id, worktreePath: c.slot.worktreePath, branch: c.slot.worktreeBranch });
    }
    if (c.disk.state === "tampered" && !opts.repairTampered)
      throw tamperedSlot(c.disk, { taskId: scope.taskId, repositoryId: c.repo.id, worktreePath: c.slot.worktreePath });
  }
  const tampered = checked.filter((c) => c.disk.state === "tampered");
  if (tampered.length > 0) {
    for (const c of tampered) {
      await deps.git.withRepoLock(c.repo.path, () => deps.worktrees.repairLink({ repoPath: c.repo.path, worktreePath: c.slot.worktreePath }));
    }
    deps.log.warn({ ...scope, repaired: tampered.map((c) => c.slot.worktreePath) }, "a redirected .git link was written back to its recorded git dir (SBX-4)");
    deps.bus.publish("environment.updated", { taskId: scope.taskId, environmentId: ws.environmentId, status: "ready" });
    checked = await checkWorkspace(deps, ws, scope);
    for (const c of checked) {
      if (c.disk.state === "foreign")
        throw reuseUnsafe(c.disk, { taskId: scope.taskId, repositoryId: c.repo.id, worktreePath: c.slot.worktreePath, branch: c.slot.worktreeBranch });
      if (c.disk.state === "tampered") throw tamperedSlot(c.disk, { taskId: scope.taskId, repositoryId: c.repo.id, worktreePath: c.slot.worktreePath });
    }
  }
  const missing = checked.filter((c) => c.disk.state === "missing");
  if (missing.length === 0) return [];
  const routes = await resolveTaskRefreshRoutes(
    deps,
    checked.map((c) => ({ repository: c.repo })),
    scope,
  );
  for (const { slot, repo } of missing) {
    try {
      // A vanished clone of a remote repository comes back first (this runner's own).
      await ensureRepositoryOnThisRunner(deps, repo, scope);
      // RR-5: a vanished worktree is recreated only after its refresh.
      await refreshForRecreate(deps, repo, { baseBranch: slot.row.baseBranch }, scope, routes.get(repo.id));
      await deps.worktrees.recreate({ repoPath: repo.path, worktreePath: slot.worktreePath, branch: slot.worktreeBranch });
    } catch (e) {
      throw scoped(e, repo, scope);
    }
  }
  deps.log.info({ ...scope, recreated: missing.map((m) => m.slot.worktreePath) }, "vanished worktrees recreated in place (WT-5)");
  // Clients refetch the environment (no longer `missing`); the changes watcher watches it again.
  deps.bus.publish("environment.updated", { taskId: scope.taskId, environmentId: ws.environmentId, status: "ready" });
  return missing.map((m) => m.repo.id);
}
