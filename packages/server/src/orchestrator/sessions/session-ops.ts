import type { AgentHandle } from "../../agents/runtime.js";
import { AppError } from "../../domain/errors.js";
import type { SessionRecord } from "../../domain/records.js";
import { RESUMABLE_STATES } from "../../domain/session-state.js";
import type { Deps, SessionPorts } from "../context.js";
import { spawnAgent } from "./agent-launch.js";
import { stopSessionGroups, survivorsError } from "../lifecycle/agent-groups.js";
import { assertTaskWorkable } from "../lifecycle/lifecycle.js";
import type { LiveSessions } from "./live-sessions.js";
import { refreshTaskState } from "../tasks/tasks.js";
import { startTurn } from "./turns.js";
import { liveWorkspaceIntact, prepareSessionWorkspace } from "./session-workspace.js";

export async function getSessionOr404(deps: Pick<Deps, "store">, id: string): Promise<SessionRecord> {
  const s = await deps.store.getSession(id);
  if (!s) throw new AppError("not_found", `session ${id} not found`, { id });
  return s;
}

/**
 * FLOWS "Prompt or resume", step 2: the session's live agent when its workspace is intact (a
 * cheap local check, WT-5), else a new one — a live agent whose worktree vanished is stopped
 * first (its whole process group, before it can write a plain directory into the path), the
 * workspace is projected from rows (ENV-5), rematerialized after an unarchive (LC-5) or
 * recreated in place (WT-5), and the agent resumed with `session/load` in the same cwd (SES-6).
 */
async function ensureAgent(deps: SessionPorts, live: LiveSessions, session: SessionRecord): Promise<AgentHandle> {
  const existing = deps.agents.get(session.id);
  if (existing && (await liveWorkspaceIntact(deps, session))) return existing;
  return deps.launches.run(session.taskId, async () => {
    if (deps.agents.get(session.id)) {
      deps.log.warn({ sessionId: session.id, taskId: session.taskId }, "the workspace of a live agent vanished: stopping it before the recreate (WT-5)");
      await deps.agents.stop(session.id);
    }
    const ws = await prepareSessionWorkspace(deps, session);
    // An archive/delete/reset reserved while the workspace came back wins (LC-1): no agent.
    await assertTaskWorkable(deps, session.taskId);
    const handle = await spawnAgent(deps, live, session, ws.workspacePath, true);
    try {
      await assertTaskWorkable(deps, session.taskId);
    } catch (e) {
      await deps.agents.stop(session.id).catch(() => undefined);
      throw e;
    }
    return handle;
  });
}

/** `POST /sessions/:id/prompt`: claims the turn by compare-and-set, then runs it in the background. */
export async function promptSession(deps: SessionPorts, live: LiveSessions, id: string, prompt: string): Promise<SessionRecord> {
  const session = await getSessionOr404(deps, id);
  if (session.state === "starting" || session.state === "running") throw new AppError("session_busy", `session ${id} is ${session.state}`);
  if (session.state !== "waiting_for_input") {
    throw new AppError("session_not_resumable", `session ${id} is ${session.state}; resume it first`, { state: session.state });
  }
  await assertTaskWorkable(deps, session.taskId);
  // USE-2: past a budget no new turn starts (unless a person let one more run).
  await live.usage.gate(session.taskId, id, session.agent);
  const running = await live.transition(session, ["waiting_for_input"], "running");
  if (!running) {
    await live.usage.ungate(session.taskId, id);
    throw new AppError("session_busy", `session ${id} changed state; try again`);
  }
  let handle: AgentHandle;
  try {
    handle = await ensureAgent(deps, live, running);
  } catch (e) {
    // USE-2: a continue-once grant this turn took is given back: the turn never started.
    await live.usage.ungate(session.taskId, id);
    return live.launchFailed(running, ["running"], e);
  }
  startTurn(deps, live, running, handle, prompt);
  return running;
}

/** `POST /sessions/:id/resume`: the only way out of failed/cancelled (SES-1). */
export async function resumeSession(deps: SessionPorts, live: LiveSessions, id: string): Promise<SessionRecord> {
  const session = await getSessionOr404(deps, id);
  // The same condition and code as deleting a running session (one code per condition).
  if (session.state === "starting" || session.state === "running") throw new AppError("session_running", `session ${id} is ${session.state}; cancel it first`);
  if (!RESUMABLE_STATES.includes(session.state)) throw new AppError("session_not_resumable", `session ${id} is ${session.state}`);
  // A live agent in an intact workspace needs nothing; a vanished one is recreated below (WT-5).
  if (session.state === "waiting_for_input" && deps.agents.get(id) && (await liveWorkspaceIntact(deps, session).catch(() => false))) return session;
  await assertTaskWorkable(deps, session.taskId);
  const starting = await live.transition(session, RESUMABLE_STATES, "starting", null);
  if (!starting) throw new AppError("session_running", `session ${id} changed state; try again`);
  try {
    // LIVE-3: an agent still inside a stalled turn cannot take a prompt: a new one resumes.
    if (deps.agents.get(id)?.busy) await deps.agents.stop(id);
    await ensureAgent(deps, live, starting);
    return (await live.transition(starting, ["starting"], "waiting_for_input")) ?? starting;
  } catch (e) {
    return live.launchFailed(starting, ["starting"], e);
  }
}

/** States a restart may leave: all but `starting` (a launch in flight) and `created`. */
const RESTARTABLE_STATES = ["running", ...RESUMABLE_STATES] as const;

/**
 * LIVE-3 `POST /sessions/:id/restart`: the way out of a stalled (or hung) turn. The session is
 * claimed first (compare-and-set to `starting`, so the cut turn's own ending changes nothing),
 * then its agent's whole process group is stopped and a new agent resumes the conversation
 * with `session/load` in the same worktree (SES-6); the session then waits for input.
 */
export async function restartSession(deps: SessionPorts, live: LiveSessions, id: string): Promise<SessionRecord> {
  const session = await getSessionOr404(deps, id);
  if (!RESTARTABLE_STATES.includes(session.state as (typeof RESTARTABLE_STATES)[number])) {
    throw new AppError(session.state === "starting" ? "session_busy" : "session_not_resumable", `session ${id} is ${session.state}`, { state: session.state });
  }
  await assertTaskWorkable(deps, session.taskId);
  const starting = await live.transition(session, RESTARTABLE_STATES, "starting", null);
  if (!starting) throw new AppError("session_busy", `session ${id} changed state; try again`);
  try {
    const survivors = await stopSessionGroups(deps, [id], { graceMs: 2000, killWaitMs: 2000 });
    if (survivors.length > 0) throw survivorsError(`session ${id} was not restarted`, survivors);
    live.cancelAsks(id);
    await ensureAgent(deps, live, starting);
    return (await live.transition(starting, ["starting"], "waiting_for_input")) ?? starting;
  } catch (e) {
    return live.launchFailed(starting, ["starting"], e);
  }
}

/** `POST /sessions/:id/cancel`: ends the running turn (`session/cancel`); the session then waits. */
export async function cancelSession(deps: Pick<Deps, "store" | "agents">, id: string): Promise<SessionRecord> {
  const session = await getSessionOr404(deps, id);
  const handle = deps.agents.get(id);
  if (handle?.busy) await handle.cancel();
  return session;
}

/**
 * SES-7: deleting a session is a conversation operation. Refused while starting or running;
 * stops only this session's agent (its whole process group, SEC-7); never touches the
 * workspace and creates no cleanup job.
 */
export async function deleteSession(deps: Pick<Deps, "store" | "agents" | "bus" | "log" | "now">, live: LiveSessions, id: string): Promise<void> {
  const session = await getSessionOr404(deps, id);
  if (session.state === "starting" || session.state === "running") {
    throw new AppError("session_running", `session ${id} is ${session.state}; cancel it first`);
  }
  // SEC-7: the whole recorded group, leader alive or not; a survivor keeps the session (and its
  // record), so nothing of the agent is left running without a trace.
  const survivors = await stopSessionGroups(deps, [id], { graceMs: 3000, killWaitMs: 2000 });
  if (survivors.length > 0) throw survivorsError(`session ${id} was not deleted`, survivors);
  await deps.store.deleteSession(id);
  live.forget(id);
  deps.bus.publish("session.deleted", { sessionId: id, taskId: session.taskId });
  await refreshTaskState(deps, session.taskId);
}
