import { recordedGroupMembers, terminateRecordedGroups, type RecordedGroup } from "../../agents/process-group.js";
import { AppError } from "../../domain/errors.js";
import type { Deps } from "../context.js";

/** One recorded agent process group of a session (pid = group id, plus the leader's start time). */
export interface SessionGroup {
  sessionId: string;
  pid: number;
  startTime: string;
}

/** The bounded waits of a stop: SIGTERM grace, then the wait after SIGKILL. */
export interface GroupStopTiming {
  graceMs: number;
  killWaitMs?: number;
}

function groupOf(p: SessionGroup): RecordedGroup {
  return { pgid: p.pid, leaderStartTime: p.startTime };
}

/**
 * SEC-7, LC-3: stops everything of these sessions' agents — live handles gracefully (ACP close,
 * SIGTERM, SIGKILL), then every RECORDED process group, whether or not its leader is still
 * alive (after a crash the leader is usually gone and its children are not). `extra` adds
 * groups known from elsewhere (a cleanup snapshot). Records are read before the handles stop,
 * because a handle's exit deletes its record. A group whose members are all gone loses its
 * record; one with survivors keeps it (a retry, a restart or the task's cleanup tries again).
 * Resolves with the survivors, empty when everything is gone.
 */
export async function stopSessionGroups(
  deps: Pick<Deps, "store" | "agents" | "log">,
  sessionIds: readonly string[],
  timing: GroupStopTiming,
  extra: readonly SessionGroup[] = [],
): Promise<(SessionGroup & { survivors: number[] })[]> {
  const groups = new Map<string, SessionGroup>();
  const add = (g: SessionGroup): void => {
    groups.set(`${g.pid}:${g.startTime}`, g);
  };
  for (const g of extra) add(g);
  for (const p of await deps.store.listAgentProcessesOfSessions(sessionIds)) add(p);
  for (const id of sessionIds) {
    const h = deps.agents.get(id);
    if (h) add({ sessionId: id, pid: h.pid, startTime: h.startTime });
  }
  await Promise.all(
    sessionIds.map((id) =>
      deps.agents
        .stop(id, { graceMs: timing.graceMs })
        .catch((err: unknown) => deps.log.warn({ err, sessionId: id }, "stopping an agent handle failed; its group is stopped by record")),
    ),
  );
  const list = [...groups.values()];
  for (const g of list) {
    const found = recordedGroupMembers(groupOf(g));
    if (found.length > 0) deps.log.warn({ sessionId: g.sessionId, pgid: g.pid, pids: found }, "stopping the rest of an agent's process group");
  }
  const left = await terminateRecordedGroups(list.map(groupOf), timing);
  const results = list.map((g, i) => ({ ...g, survivors: left[i]! }));
  const failedSessions = new Set(results.filter((r) => r.survivors.length > 0).map((r) => r.sessionId));
  for (const id of new Set(results.map((r) => r.sessionId))) {
    if (!failedSessions.has(id)) await deps.store.deleteAgentProcess(id);
  }
  return results.filter((r) => r.survivors.length > 0);
}

/** The error for survivors of {@link stopSessionGroups}: names every process still alive. */
export function survivorsError(what: string, survivors: (SessionGroup & { survivors: number[] })[]): AppError {
  const pids = survivors.flatMap((s) => s.survivors);
  const groups = survivors.map((s) => `group ${s.pid} of session ${s.sessionId}: ${s.survivors.join(", ")}`).join("; ");
  return new AppError("agent_processes_survived", `${what}: agent process(es) still alive after SIGTERM and SIGKILL (${groups})`, {
    pids,
    sessions: survivors.map((s) => s.sessionId),
  });
}

/**
 * Start-up (SES-6) and shutdown: every group recorded for this runner is stopped, whether or
 * not its leader is alive. Records of gone groups are deleted; survivors are logged and kept.
 */
export async function stopRunnerGroups(deps: Pick<Deps, "store" | "log" | "runnerId">, timing: GroupStopTiming): Promise<number> {
  const records = await deps.store.listAgentProcesses(deps.runnerId);
  for (const p of records) {
    const found = recordedGroupMembers(groupOf(p));
    if (found.length > 0) deps.log.warn({ sessionId: p.sessionId, pgid: p.pid, pids: found }, "stopping a recorded agent process group without a live handle");
  }
  const left = await terminateRecordedGroups(records.map(groupOf), timing);
  for (const [i, p] of records.entries()) {
    if (left[i]!.length > 0) {
      deps.log.error({ sessionId: p.sessionId, pgid: p.pid, pids: left[i] }, "agent processes survived SIGKILL; record kept");
      continue;
    }
    await deps.store.deleteAgentProcess(p.sessionId, { pid: p.pid, startTime: p.startTime });
  }
  return records.length;
}
