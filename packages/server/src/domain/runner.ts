import type { Runner, RunnerState } from "@grove/protocol";

/** A runner's row (issue 15); `state` is derived from it at read time, never stored. */
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
export function runnerState(r: RunnerRecord, nowMs: number): RunnerState {
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
  };
}
