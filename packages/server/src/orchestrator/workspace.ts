import type { WorkspaceInfo } from "@grove/protocol";
import { AppError } from "../domain/errors.js";
import type { SessionRecord } from "../domain/records.js";
import { environmentRepositoryView } from "../domain/views.js";
import { type ProjectedWorkspace, projectWorkspace } from "../domain/workspace-projection.js";
import type { Deps } from "./context.js";
import { taskRoot } from "./paths.js";
import { refreshBeforeRecreate, type RefreshScope } from "./refresh-remote.js";

/** ENV-5: a session's workspace, from persisted rows only; fails closed. */
export async function projectSessionWorkspace(deps: Deps, session: SessionRecord): Promise<ProjectedWorkspace> {
  if (!session.taskEnvironmentId) throw new AppError("workspace_missing", `session ${session.id} has no environment`);
  const env = await deps.store.getEnvironment(session.taskEnvironmentId);
  if (!env || env.taskId !== session.taskId) throw new AppError("workspace_missing", `environment of session ${session.id} not found`);
  const task = await deps.store.getTask(session.taskId);
  if (!task) throw new AppError("not_found", `task ${session.taskId} not found`);
  const rows = await deps.store.listEnvironmentRepos(env.id);
  return projectWorkspace(env, rows, taskRoot(deps, task));
}

export async function workspaceInfo(deps: Deps, session: SessionRecord): Promise<WorkspaceInfo> {
  const ws = await projectSessionWorkspace(deps, session);
  return {
    taskId: session.taskId,
    sessionId: session.id,
    taskEnvironmentId: ws.environmentId,
    workspacePath: ws.workspacePath,
    repositories: ws.slots.map((s) => environmentRepositoryView(s.row)),
  };
}

/**
 * WT-5 on prompt/resume: recreate any vanished worktree of the workspace in place, on its
 * recorded branch. A directory that is not the recorded worktree is refused, never touched.
 */
export async function restoreWorkspace(deps: Deps, ws: ProjectedWorkspace, scope?: RefreshScope): Promise<void> {
  for (const slot of ws.slots) {
    const repo = await deps.store.getRepository(slot.row.repositoryId);
    if (!repo) throw new AppError("workspace_missing", `repository ${slot.row.repositoryId} of the workspace is gone`, { repositoryId: slot.row.repositoryId });
    try {
      // RR-5: a remote repository's vanished worktree is recreated only after its refresh.
      await refreshBeforeRecreate(deps, repo, { worktreePath: slot.worktreePath, branch: slot.worktreeBranch, baseBranch: slot.row.baseBranch }, scope ?? { taskId: "(unknown)" });
      await deps.worktrees.recreate({ repoPath: repo.path, worktreePath: slot.worktreePath, branch: slot.worktreeBranch });
    } catch (e) {
      if (e instanceof AppError) throw new AppError(e.code, e.message, { ...(e.details ?? {}), repositoryId: repo.id });
      throw e;
    }
  }
}
