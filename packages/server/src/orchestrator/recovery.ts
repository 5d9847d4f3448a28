import { isSameProcess, killProcessGroup } from "../agents/process-info.js";
import type { SessionRecord } from "../domain/records.js";
import { sessionView } from "../domain/views.js";
import { publishJob } from "./cleanup-events.js";
import type { Deps } from "./context.js";
import { refreshTaskState } from "./tasks.js";

/**
 * Start-up (FLOWS "Start-up", SES-6): interrupted sessions wait for input (a launch cut short
 * before its environment was ready fails), `creating` environments become retryable, and
 * agent processes a crashed server left behind are stopped — only when pid *and* start time
 * match, so a recycled pid is never killed. Nothing is relaunched.
 */
export async function recoverOnStartup(deps: Deps): Promise<void> {
  await recoverAfterListening(deps, await recoverBeforeListening(deps));
}

/**
 * The part of start-up recovery a request depends on, run before the server listens (issue 13):
 * live session states reset in one transaction (a prompt must not find a `running` session
 * nobody runs), orphaned agent processes stopped (they must not write into a workspace a new
 * agent is about to use), cleanup jobs recovered. Returns the sessions whose state changed.
 */
export async function recoverBeforeListening(deps: Deps): Promise<SessionRecord[]> {
  const changed = await deps.store.recoverAfterRestart(deps.runnerId, deps.now());
  for (const s of changed) deps.bus.publish("session.state_changed", { session: sessionView(s), from: null });
  const orphans = await deps.store.listAgentProcesses(deps.runnerId);
  await Promise.all(
    orphans.map(async (p) => {
      if (isSameProcess(p.pid, p.startTime)) {
        deps.log.warn({ pid: p.pid, sessionId: p.sessionId }, "stopping an agent process left by a previous server");
        killProcessGroup(p.pid, "SIGTERM");
        const deadline = Date.now() + 3000;
        while (isSameProcess(p.pid, p.startTime) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
        if (isSameProcess(p.pid, p.startTime)) killProcessGroup(p.pid, "SIGKILL");
      }
      await deps.store.deleteAgentProcess(p.sessionId);
    }),
  );
  // LC-4: `running` jobs are due again; `prepared` ones activated or cancelled (FLOWS "Start-up" 2).
  // One transaction over this runner's unfinished jobs: it does not grow with history, and a
  // request must not see a job the crash left `prepared`.
  for (const job of await deps.store.recoverCleanupJobs(deps.runnerId, deps.now())) publishJob(deps, job);
  if (changed.length > 0 || orphans.length > 0) deps.log.info({ sessions: changed.length, orphans: orphans.length }, "start-up recovery done");
  return changed;
}

/**
 * What may run once the server listens: task states re-derived from the recovered sessions (a
 * query and a compare-and-set per task, growing with the sessions to recover). A request
 * meanwhile sees the previous task state for a moment.
 */
export async function recoverAfterListening(deps: Deps, changed: readonly SessionRecord[]): Promise<void> {
  for (const taskId of new Set(changed.map((s) => s.taskId))) await refreshTaskState(deps, taskId);
}
