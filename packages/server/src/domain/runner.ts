import type { Runner, RunnerState } from "@grove/protocol";

/** A runner's row; `state` is derived from it at read time, never stored. */
export interface RunnerRecord {
  id: string;
  host: string;
  url: string;
  labels: string[];
  maxAgents: number | null;
  liveAgents: number;
  version: string;
  heartbeatMs: number;
  startedAt: string;
  lastSeenAt: string;
  stoppedAt: string | null;
  /**
   * The public id of the runner's credential key (git/credential-vault.ts credentialKeyId):
   * a stored credential sealed under another id cannot be opened there. Null before migration 014.
   */
  credentialKeyId: string | null;
}

/** A runner is offline after three missed heartbeats (its own interval), or once it stopped. */
export const OFFLINE_AFTER_HEARTBEATS = 3;

/** `online` while `now` is within 3 × the runner's heartbeat of its last one and it has not stopped. */
export function runnerState(r: Pick<RunnerRecord, "stoppedAt" | "lastSeenAt" | "heartbeatMs">, nowMs: number): RunnerState {
  if (r.stoppedAt) return "offline";
  return nowMs - Date.parse(r.lastSeenAt) <= OFFLINE_AFTER_HEARTBEATS * r.heartbeatMs ? "online" : "offline";
}

/** The API shape of a runner at time `nowMs`. */
export function toRunner(r: RunnerRecord, nowMs: number): Runner {
  return {
    id: r.id,
    host: r.host,
    url: r.url,
    labels: r.labels,
    maxAgents: r.maxAgents,
    liveAgents: r.liveAgents,
    state: runnerState(r, nowMs),
    version: r.version,
    lastSeenAt: r.lastSeenAt,
    credentialKeyId: r.credentialKeyId,
  };
}

/** `{runnerId, runnerState}` of a task (Task, TaskSummary): both null before it has an environment. */
export interface TaskRunner {
  runnerId: string | null;
  runnerState: RunnerState | null;
}

/**
 * A task's runner as lists and summaries show it, at time `nowMs`: none before an environment
 * exists; the runner answering (`selfId`) is online while it serves; a runner id without a row
 * counts as offline (its files cannot be reached); any other is judged by its heartbeat.
 */
export function taskRunner(env: { runnerId: string; runner: RunnerRecord | undefined } | undefined, selfId: string, nowMs: number): TaskRunner {
  if (!env) return { runnerId: null, runnerState: null };
  if (env.runnerId === selfId) return { runnerId: env.runnerId, runnerState: "online" };
  return { runnerId: env.runnerId, runnerState: env.runner ? runnerState(env.runner, nowMs) : "offline" };
}
