import { isSameProcess, killProcessGroup } from "../agents/process-info.js";
import type { CleanupSnapshot } from "../domain/cleanup-job.js";
import { AppError } from "../domain/errors.js";
import type { Deps } from "./context.js";

const GRACE_MS = 3000;

function delay(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/**
 * LC-3 step 1: every agent process of the task is gone before any worktree is touched.
 * Live handles are stopped gracefully (ACP connection closed, SIGTERM, then SIGKILL of the
 * whole process group after a grace period). Processes recorded in the database but without a
 * handle (a previous server's orphans) are signalled by process group, only while pid *and*
 * start time still match. A process that survives → AppError, so the job keeps the worktrees
 * and retries (a failed or uncertain stop never leads to a removal).
 */
export async function stopTaskAgents(deps: Deps, snapshot: CleanupSnapshot): Promise<void> {
  await waitForLaunches(deps, snapshot);
  await Promise.all(snapshot.sessionIds.map((id) => deps.agents.stop(id, { graceMs: GRACE_MS })));
  const recorded = new Map(snapshot.agentProcesses.map((p) => [p.sessionId, p]));
  // Every runner's agents of the task: a session attached through another server process runs
  // its agent on this host, in these worktrees (ST-3).
  for (const p of await deps.store.listAgentProcessesOfSessions(snapshot.sessionIds)) recorded.set(p.sessionId, p);
  const survivors: number[] = [];
  for (const p of recorded.values()) {
    if (isSameProcess(p.pid, p.startTime)) {
      deps.log.warn({ agentPid: p.pid, sessionId: p.sessionId, taskId: snapshot.taskId }, "cleanup: stopping an agent process without a live handle");
      killProcessGroup(p.pid, "SIGTERM");
      const deadline = Date.now() + GRACE_MS;
      while (isSameProcess(p.pid, p.startTime) && Date.now() < deadline) await delay(50);
      if (isSameProcess(p.pid, p.startTime)) killProcessGroup(p.pid, "SIGKILL");
      const killDeadline = Date.now() + 2000;
      while (isSameProcess(p.pid, p.startTime) && Date.now() < killDeadline) await delay(20);
      if (isSameProcess(p.pid, p.startTime)) {
        survivors.push(p.pid);
        continue;
      }
    }
    await deps.store.deleteAgentProcess(p.sessionId);
  }
  if (survivors.length > 0) {
    throw new AppError("internal_error", `agent process(es) ${survivors.join(", ")} of task ${snapshot.taskId} did not stop; worktrees kept`, { pids: survivors });
  }
}

const LAUNCH_WAIT_MS = 15_000;

/**
 * A session still `starting` may be materializing or spawning its agent right now. An agent
 * already spawned is stopped (its launch fails); otherwise the launch re-checks the task after
 * the spawn and stops the agent itself (launch.ts). The job waits for every such session so the
 * worktree is not pulled from under a starting agent. Still
 * starting after the wait → an uncertain stop: throw, keep the worktrees, retry (LC-3).
 */
async function waitForLaunches(deps: Deps, snapshot: CleanupSnapshot): Promise<void> {
  const deadline = Date.now() + LAUNCH_WAIT_MS;
  for (;;) {
    const starting = (await deps.store.listSessions(snapshot.taskId)).filter((s) => s.state === "starting" && snapshot.sessionIds.includes(s.id));
    if (starting.length === 0 && deps.launches.count(snapshot.taskId) === 0) return;
    // An agent still in initialize/session/new is stopped now: its launch then fails at once
    // instead of holding the job until a start timeout.
    await Promise.all(starting.filter((s) => deps.agents.isStarting(s.id)).map((s) => deps.agents.stop(s.id, { graceMs: GRACE_MS })));
    if (Date.now() > deadline) {
      throw new AppError("session_running", `session(s) of task ${snapshot.taskId} are still starting (${starting.map((s) => s.id).join(", ") || "a prompt or restore"}); worktrees kept`);
    }
    await delay(50);
  }
}
