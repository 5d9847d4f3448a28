import { existsSync } from "node:fs";
import { taskBrief, type CreateSessionBody } from "@grove/protocol";
import { AppError } from "../../domain/errors.js";
import { newId } from "../../domain/ids.js";
import type { EnvironmentRecord, SessionRecord, TaskRecord } from "../../domain/records.js";
import { sessionView } from "../../domain/views.js";
import type { Deps, SessionPorts } from "../context.js";
import { requireLaunch } from "../../agents/agent-install.js";
import { spawnAgent } from "./agent-launch.js";
import { currentProfile } from "./current-profile.js";
import { sandboxModeFor } from "./sandbox-launch.js";
import { errorOf, type LiveSessions } from "./live-sessions.js";
import { assertTaskWorkable } from "../lifecycle/lifecycle.js";
import { materializeSlots } from "../worktrees/materialize.js";
import { taskRoot } from "../worktrees/paths.js";
import { getTaskOr404 } from "../tasks/tasks.js";
import { startTurn } from "./turns.js";
import { projectSessionWorkspace, restoreWorkspace } from "../worktrees/workspace.js";
import { reuseAction, tamperedSlot } from "../worktrees/workspace-check.js";
import { projectWorkspace } from "../../domain/workspace-projection.js";
import { getRepositoryOnThisRunner } from "../refresh/repository-on-runner.js";

/**
 * `POST /tasks/:id/sessions` (FLOWS "Launch" and "Attach"). The first session materializes
 * the environment (SES-2); every later one attaches after a read-only validation (SES-3) and
 * gets its own agent process on the same files (SES-4). Returns once the agent is up; the
 * first prompt's turn runs in the background.
 */
/** `opts.sessionId`: the id to create the session with (WF-2: an automated start planned it first, so a redo finds it). */
export async function startSession(
  deps: SessionPorts,
  live: LiveSessions,
  taskId: string,
  body: CreateSessionBody,
  opts: { sessionId?: string } = {},
): Promise<SessionRecord> {
  const task = await getTaskOr404(deps, taskId);
  if (task.archivedAt) throw new AppError("task_archived", `task ${taskId} is archived`);
  const agent = body.agent ?? "scripted";
  // AG-3: an unknown, missing or uninstalled agent is refused before anything is created.
  const profile = await currentProfile(deps, agent);
  requireLaunch(profile, deps.home);
  // SBX-3: so is a real agent that would have to run without a sandbox.
  const sandbox = sandboxModeFor(deps, profile);
  // USE-2: a session that would start with a turn is refused past a budget before anything exists.
  const prompt = body.prompt ?? taskBrief(task);
  const sessionId = opts.sessionId ?? newId("ses");
  if (prompt !== undefined && prompt.trim() !== "") await live.usage.gate(taskId, sessionId, agent);
  try {
    return await reserveAndLaunch(deps, live, task, { sessionId, agent, sandbox, prompt });
  } catch (e) {
    // USE-2: a continue-once grant taken for a session refused before its turn started is given back.
    await live.usage.ungate(taskId, sessionId);
    throw e;
  }
}

/** SES-2/SES-3: validates, reserves the session's row and environment, materializes, then launches. */
async function reserveAndLaunch(
  deps: SessionPorts,
  live: LiveSessions,
  task: TaskRecord,
  o: { sessionId: string; agent: string; sandbox: SessionRecord["sandbox"]; prompt: string | undefined },
): Promise<SessionRecord> {
  const { sessionId, agent, sandbox, prompt } = o;
  const taskId = task.id;
  const before = await deps.store.getEnvironmentByTask(taskId);
  // Validate before inserting anything, so a refused attach leaves no row behind (SES-3).
  // A ready environment with tombstoned rows (archived, then unarchived) materializes again (LC-5).
  const rematerialize = before?.status === "ready" && (await deps.store.listEnvironmentRepos(before.id)).some((r) => r.status === "deleted");
  if (before?.status === "ready" && !rematerialize) await recreateMissingThenValidate(deps, task, before);
  const now = deps.now();
  const draft: SessionRecord = {
    id: sessionId,
    taskId,
    agent,
    state: "starting",
    taskEnvironmentId: null,
    acpSessionId: null,
    lastError: null,
    createdAt: now,
    updatedAt: now,
    sandbox,
  };
  const { mode, environment, session } = await deps.store.reserveLaunch({ taskId, session: draft, runnerId: deps.runnerId, now });
  if (environment.runnerId !== deps.runnerId) {
    // Another runner placed the environment meanwhile; its files are not ours to attach to.
    await deps.store.deleteSession(session.id);
    throw new AppError("no_runner_available", `task ${taskId} was placed on runner ${environment.runnerId} meanwhile; send the request again`, {
      reason: "placed_elsewhere",
      runnerId: environment.runnerId,
    });
  }
  if (mode === "attach" && before?.status !== "ready") {
    // The environment became ready between our read and the reservation: validate now.
    try {
      await validateAttach(deps, environment);
    } catch (e) {
      await deps.store.deleteSession(session.id);
      throw e;
    }
  }
  deps.bus.publish("session.created", { session: sessionView(session) });
  const others = (await deps.store.listSessions(taskId)).filter((s) => s.id !== session.id && (s.state === "running" || s.state === "starting"));
  if (others.length > 0)
    deps.log.info({ taskId, sessionId: session.id, concurrent: others.length }, "session starts while another session of the task is working (SES-4)");

  // WT-10: the pool's refills wait until this start has its agent up (they would compete for the disk and CPU).
  const release = mode === "materialize" ? deps.pool?.hold() : undefined;
  try {
    if (mode === "materialize") {
      const ok = await materialize(deps, live, task, environment, session);
      if (!ok) {
        await live.usage.ungate(taskId, session.id);
        return (await deps.store.getSession(session.id)) ?? session;
      }
    }
    // BRIEF-1: no prompt at all sends the task's brief; an explicit empty prompt starts idle.
    return await launchAgent(deps, live, session, prompt);
  } finally {
    release?.();
  }
}

/** The ports (orchestrator/context.ts) materialize uses. */
export type MaterializePorts = Pick<Deps, "store" | "git" | "worktrees" | "bus" | "log" | "home" | "runnerId" | "now" | "remote" | "tuning" | "pool">;

async function materialize(deps: MaterializePorts, live: LiveSessions, task: TaskRecord, env: EnvironmentRecord, session: SessionRecord): Promise<boolean> {
  deps.bus.publish("environment.updated", { taskId: task.id, environmentId: env.id, status: "creating" });
  try {
    const rows = await materializeSlots(deps, task, env, { taskId: task.id, sessionId: session.id });
    const active = rows.filter((r) => r.status === "active");
    const workspacePath = active.length === 1 && active[0]?.worktreePath ? active[0].worktreePath : taskRoot(deps, task);
    const ready = await deps.store.setEnvironmentStatus(env.id, ["creating"], "ready", { workspacePath }, deps.now());
    if (!ready) throw new AppError("internal_error", "the environment changed state while it was being materialized");
    deps.bus.publish("environment.updated", { taskId: task.id, environmentId: env.id, status: "ready" });
    return true;
  } catch (e) {
    deps.log.warn({ err: e, taskId: task.id, sessionId: session.id }, "materialization failed");
    await deps.store.setEnvironmentStatus(env.id, ["creating"], "failed", {}, deps.now());
    deps.bus.publish("environment.updated", { taskId: task.id, environmentId: env.id, status: "failed" });
    await live.transition(session, ["starting"], "failed", errorOf(e, deps.now()));
    return false;
  }
}

/** The ports (orchestrator/context.ts) launchAgent uses. */
export type LaunchAgentPorts = Pick<
  Deps,
  "store" | "git" | "worktrees" | "agents" | "profiles" | "log" | "home" | "runnerId" | "now" | "remote" | "sandbox" | "mcp"
>;

/** Spawns the session's agent in the projected workspace and sends the first prompt, if any. */
async function launchAgent(deps: LaunchAgentPorts, live: LiveSessions, session: SessionRecord, prompt: string | undefined): Promise<SessionRecord> {
  try {
    const ws = await projectSessionWorkspace(deps, session);
    const handle = await spawnAgent(deps, live, session, ws.workspacePath, false);
    // LC-3: a cleanup reserved while this agent was starting may have missed it; refuse now.
    await assertTaskWorkable(deps, session.taskId);
    const fresh = (await deps.store.getSession(session.id)) ?? session;
    if (prompt !== undefined && prompt.trim() !== "") {
      const running = await live.transition(fresh, ["starting"], "running");
      if (!running) return (await deps.store.getSession(session.id)) ?? fresh;
      startTurn(deps, live, running, handle, prompt);
      return running;
    }
    return (await live.transition(fresh, ["starting"], "waiting_for_input")) ?? fresh;
  } catch (e) {
    await live.usage.ungate(session.taskId, session.id);
    return live.launchFailed(session, ["starting"], e);
  }
}

/** The ports (orchestrator/context.ts) recreateMissingThenValidate uses. */
export type RecreateMissingThenValidatePorts = Pick<Deps, "store" | "git" | "worktrees" | "bus" | "log" | "home" | "launches" | "remote">;

/**
 * SES-3 with WT-5's one exception: a recorded worktree whose directory is missing is recreated
 * in place first (same id, path and branch; routes of all slots resolved up front, refresh per
 * route), exactly as a prompt would; a foreign directory is refused with its action. Then the
 * read-only validation of every slot.
 */
async function recreateMissingThenValidate(deps: RecreateMissingThenValidatePorts, task: TaskRecord, env: EnvironmentRecord): Promise<void> {
  const rows = await deps.store.listEnvironmentRepos(env.id);
  if (rows.some((r) => r.status === "active" && r.worktreePath !== null && !existsSync(r.worktreePath))) {
    await deps.launches.run(task.id, async () => {
      await assertTaskWorkable(deps, task.id);
      await restoreWorkspace(deps, projectWorkspace(env, rows, taskRoot(deps, task)), { taskId: task.id });
    });
  }
  await validateAttach(deps, env);
}

/** SES-3: every active slot is the recorded worktree, on its branch. Read-only, no network. */
export async function validateAttach(deps: Pick<Deps, "store" | "worktrees" | "home" | "remote">, env: EnvironmentRecord): Promise<void> {
  const rows = (await deps.store.listEnvironmentRepos(env.id)).filter((r) => r.status === "active");
  if (rows.length === 0) throw new AppError("workspace_reuse_unsafe", "the environment has no active worktree", { reason: "missing" });
  for (const row of rows) {
    const repo = await getRepositoryOnThisRunner(deps, row.repositoryId);
    if (!repo || !row.worktreePath || !row.worktreeBranch) {
      throw new AppError("workspace_reuse_unsafe", `slot ${row.repositoryId} has no recorded worktree`, { reason: "missing", repositoryId: row.repositoryId });
    }
    const v = await deps.worktrees.validate({ repoPath: repo.path, worktreePath: row.worktreePath, branch: row.worktreeBranch });
    if (!v.ok && v.reason === "tampered")
      throw tamperedSlot({ state: "tampered", message: v.message }, { taskId: env.taskId, repositoryId: row.repositoryId, worktreePath: row.worktreePath });
    if (!v.ok) {
      throw new AppError("workspace_reuse_unsafe", `worktree ${row.worktreePath} cannot be reused: ${v.message}`, {
        reason: v.reason,
        repositoryId: row.repositoryId,
        worktreePath: row.worktreePath,
        action: reuseAction(v.reason, { taskId: env.taskId, worktreePath: row.worktreePath, branch: row.worktreeBranch }),
      });
    }
  }
}
