import type { Environment, EnvironmentRepository } from "@grove/protocol";
import type { EnvironmentRecord, EnvironmentRepoRecord } from "../../domain/records.js";
import { environmentView } from "../../domain/views.js";
import type { Deps } from "../context.js";
import { checkSlotOnDisk, restoreCommand, reuseAction, tamperedAction } from "./workspace-check.js";
import { getRepositoryOnThisRunner } from "../refresh/repository-on-runner.js";

/** WT-5: one active row's projected on-disk state, with the action that fixes anything but `ok`. */
async function rowState(
  deps: Pick<Deps, "store" | "worktrees" | "home" | "remote">,
  taskId: string,
  r: EnvironmentRepoRecord,
): Promise<Pick<EnvironmentRepository, "worktreeState" | "action">> {
  if (r.status !== "active") return {};
  if (!r.worktreePath || !r.worktreeBranch)
    return { worktreeState: "no_identity", action: `reset the task's environment (POST /tasks/${taskId}/environment/reset)` };
  const repo = await getRepositoryOnThisRunner(deps, r.repositoryId);
  if (!repo) return { worktreeState: "no_identity", action: "register the repository again or delete the task" };
  const disk = await checkSlotOnDisk(deps, { repoPath: repo.path, worktreePath: r.worktreePath, branch: r.worktreeBranch });
  if (disk.state === "ok") return { worktreeState: "ok" };
  if (disk.state === "missing")
    return { worktreeState: "missing", action: `run \`${restoreCommand(taskId)}\` (or prompt a session): recreated in place on ${r.worktreeBranch}` };
  if (disk.state === "tampered") return { worktreeState: "tampered", action: tamperedAction(taskId) };
  return { worktreeState: "foreign", action: reuseAction(disk.reason, { taskId, worktreePath: r.worktreePath, branch: r.worktreeBranch }) };
}

/**
 * `GET /tasks/:id/environment`: the persisted environment plus, per active row, its projected
 * `worktreeState` (`ok | missing | foreign | tampered | no_identity`) and `action` — a vanished worktree
 * shows as `missing` the moment it is gone (WT-5), read from disk cheaply, never guessed.
 */
export async function environmentWithDisk(deps: Pick<Deps, "store" | "worktrees" | "home" | "remote">, env: EnvironmentRecord): Promise<Environment> {
  const rows = await deps.store.listEnvironmentRepos(env.id);
  const view = environmentView(env, rows);
  const states = await Promise.all(rows.map((r) => rowState(deps, env.taskId, r)));
  return { ...view, repositories: view.repositories.map((r, i) => ({ ...r, ...states[i] })) };
}
