import { AppError } from "../../domain/errors.js";
import type { EnvironmentRecord, SessionRecord, TaskRecord } from "../../domain/records.js";
import { projectWorkspace, type ProjectedWorkspace } from "../../domain/workspace-projection.js";
import type { Deps } from "../context.js";
import { materializeSlots } from "../worktrees/materialize.js";
import { taskRoot } from "../worktrees/paths.js";
import type { RefreshScope } from "../refresh/refresh-routes.js";
import { getTaskOr404 } from "../tasks/tasks.js";
import { checkWorkspace, projectSessionWorkspace, restoreWorkspace } from "../worktrees/workspace.js";
import { reuseUnsafe, tamperedSlot } from "../worktrees/workspace-check.js";

/**
 * An environment that must be materialized again before anything runs in it: `failed` (a launch
 * or restart interrupted it) or `ready` with tombstoned rows (archived, then unarchived, LC-5).
 */
async function needsMaterialize(deps: Pick<Deps, "store">, env: EnvironmentRecord): Promise<boolean> {
  if (env.status === "failed") return true;
  if (env.status !== "ready") return false;
  return (await deps.store.listEnvironmentRepos(env.id)).some((r) => r.status === "deleted");
}

/** The ports (orchestrator/context.ts) rematerialize uses. */
export type RematerializePorts = Pick<Deps, "store" | "git" | "worktrees" | "bus" | "log" | "home" | "runnerId" | "now" | "remote" | "tuning" | "pool">;

/**
 * LC-5 / WT-5 for an existing environment: claims it (`ready|failed → creating`, compare-and-set,
 * so a concurrent launch gets `409 workspace_preparing`), recreates every slot in place on its
 * recorded branch — routes resolved up front, refresh per route, LC-8 saved work restored once —
 * and sets it `ready` again (or `failed`, with the error rethrown).
 */
async function rematerialize(deps: RematerializePorts, task: TaskRecord, env: EnvironmentRecord, scope: RefreshScope): Promise<void> {
  const from = env.status === "failed" ? (["failed"] as const) : (["ready"] as const);
  const claimed = await deps.store.setEnvironmentStatus(env.id, [...from], "creating", {}, deps.now());
  if (!claimed) throw new AppError("workspace_preparing", `the workspace of task ${task.id} is being prepared`, { taskId: task.id, environmentId: env.id });
  deps.bus.publish("environment.updated", { taskId: task.id, environmentId: env.id, status: "creating" });
  try {
    const rows = await materializeSlots(deps, task, claimed, scope);
    const active = rows.filter((r) => r.status === "active");
    const workspacePath = active.length === 1 && active[0]?.worktreePath ? active[0].worktreePath : taskRoot(deps, task);
    const ready = await deps.store.setEnvironmentStatus(env.id, ["creating"], "ready", { workspacePath }, deps.now());
    if (!ready) throw new AppError("internal_error", "the environment changed state while it was being materialized");
    deps.bus.publish("environment.updated", { taskId: task.id, environmentId: env.id, status: "ready" });
  } catch (e) {
    await deps.store.setEnvironmentStatus(env.id, ["creating"], "failed", {}, deps.now());
    deps.bus.publish("environment.updated", { taskId: task.id, environmentId: env.id, status: "failed" });
    throw e;
  }
}

/**
 * FLOWS "Prompt or resume" step 2 (WT-5, LC-5, SES-6): the workspace of an existing session,
 * ready for its agent. An unarchived or failed environment is materialized again (old sessions
 * come back with their saved work); a vanished worktree is recreated in place; a foreign
 * directory is refused with `workspace_reuse_unsafe` and `details.action`. Call inside
 * `deps.launches.run(taskId, …)` after `assertTaskWorkable`.
 */
export async function prepareSessionWorkspace(deps: RematerializePorts, session: SessionRecord): Promise<ProjectedWorkspace> {
  const scope = { taskId: session.taskId, sessionId: session.id };
  const env = session.taskEnvironmentId ? await deps.store.getEnvironment(session.taskEnvironmentId) : undefined;
  if (env && env.taskId === session.taskId && (await needsMaterialize(deps, env))) {
    await rematerialize(deps, await getTaskOr404(deps, session.taskId), env, scope);
  }
  const ws = await projectSessionWorkspace(deps, session);
  await restoreWorkspace(deps, ws, scope);
  return ws;
}

/**
 * WT-5, cheap (stat + `.git` link, no network): whether a live agent's workspace is still the
 * recorded one. `false` when a worktree vanished (the caller stops the agent and relaunches it
 * after the recreate); a foreign directory throws `workspace_reuse_unsafe` with its action.
 */
export async function liveWorkspaceIntact(deps: Pick<Deps, "store" | "worktrees" | "home" | "remote">, session: SessionRecord): Promise<boolean> {
  let ws: ProjectedWorkspace;
  try {
    ws = await projectSessionWorkspace(deps, session);
  } catch {
    return false; // the slow path reports the precise error (or rematerializes)
  }
  const checked = await checkWorkspace(deps, ws, { taskId: session.taskId, sessionId: session.id });
  for (const c of checked) {
    if (c.disk.state === "foreign")
      throw reuseUnsafe(c.disk, { taskId: session.taskId, repositoryId: c.repo.id, worktreePath: c.slot.worktreePath, branch: c.slot.worktreeBranch });
    // SBX-4: a live agent gets no prompt in a worktree whose `.git` was redirected.
    if (c.disk.state === "tampered") throw tamperedSlot(c.disk, { taskId: session.taskId, repositoryId: c.repo.id, worktreePath: c.slot.worktreePath });
  }
  return checked.every((c) => c.disk.state === "ok");
}

/**
 * `POST /tasks/:id/environment/restore` and `grove task restore` (WT-5, LC-5): brings every
 * worktree of the task back in place — vanished ones recreated, an unarchived task's tombstoned
 * ones rematerialized with their saved work. Refuses a foreign directory. Call inside
 * `deps.launches.run(taskId, …)` after `assertTaskWorkable`.
 */
export async function restoreTaskEnvironment(deps: RematerializePorts, taskId: string): Promise<EnvironmentRecord> {
  const task = await getTaskOr404(deps, taskId);
  const env = await deps.store.getEnvironmentByTask(taskId);
  if (!env) throw new AppError("not_found", `task ${taskId} has no environment`, { taskId });
  const scope = { taskId };
  if (await needsMaterialize(deps, env)) {
    await rematerialize(deps, task, env, scope);
  } else {
    // SBX-4: the person's restore also writes a redirected `.git` link back.
    await restoreWorkspace(deps, projectWorkspace(env, await deps.store.listEnvironmentRepos(env.id), taskRoot(deps, task)), scope, { repairTampered: true });
  }
  return (await deps.store.getEnvironment(env.id)) ?? env;
}
