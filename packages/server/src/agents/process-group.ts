import { readdirSync, readFileSync } from "node:fs";

/**
 * SEC-7: the processes of one agent, found and stopped as a unit, also after a server crash.
 *
 * An agent is spawned with `detached: true`, i.e. `setsid()`: its pid N is the id of a new
 * session AND of a new process group, and everything it starts (tool calls, test runners, dev
 * servers) is in that group or — when a tool uses job control — at least in that session. The
 * record is (N, S) with S the leader's start time (`/proc/N/stat` field 22). Membership is
 * decided from `/proc` only, never from a pid alone (docs/decisions/2026-11-30-agent-process-groups.md):
 *
 * 1. If a process N exists with a start time ≠ S, the recorded group is gone: Linux keeps the
 *    number N allocated while ANY process still has N as its group or session id, so N can only
 *    have been handed to a new process after the last member of ours died. Signal nothing.
 * 2. Otherwise (N is our leader, alive or a zombie, or no process N exists) the members are the
 *    live processes whose group or session id is N and whose start time is ≥ S. A process that
 *    predates the leader cannot be in its session: it would have had to be forked from it.
 *
 * Residual risk (documented, not handled): our whole group dies, N is reused by a process that
 * itself calls `setsid()`, that process dies while its children live, and all this between the
 * crash and the check. Its children then look like ours (group/session N, start ≥ S).
 */

/** A recorded agent process group: the leader's pid (= group id = session id) and start time. */
export interface RecordedGroup {
  pgid: number;
  /** Field 22 of the leader's `/proc/<pid>/stat` (clock ticks since boot), as recorded. */
  leaderStartTime: string;
}

interface ProcStat {
  pid: number;
  state: string;
  pgrp: number;
  session: number;
  startTime: bigint;
}

function readStat(pid: number): ProcStat | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return null;
  }
  // The command name (field 2) may contain spaces and ')': the last ')' ends it.
  const f = text
    .slice(text.lastIndexOf(")") + 1)
    .trim()
    .split(/\s+/);
  // f[0] is field 3 (state); pgrp is field 5, session field 6, starttime field 22.
  if (f.length < 20 || !/^\d+$/.test(f[19]!)) return null;
  return { pid, state: f[0]!, pgrp: Number(f[2]), session: Number(f[3]), startTime: BigInt(f[19]!) };
}

/** One read of `/proc`: every process by pid (zombies included, they still hold their ids). */
function scanProcesses(): Map<number, ProcStat> {
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch {
    return new Map();
  }
  const out = new Map<number, ProcStat>();
  for (const n of names) {
    if (!/^\d+$/.test(n)) continue;
    const s = readStat(Number(n));
    if (s) out.set(s.pid, s);
  }
  return out;
}

function usable(g: RecordedGroup): boolean {
  // pgid ≤ 1 would make kill(-pgid) signal everything; an unknown start time cannot be checked.
  return Number.isInteger(g.pgid) && g.pgid > 1 && /^\d+$/.test(g.leaderStartTime);
}

/** Rules 1 and 2 above, on one scan. `leader`: the recorded leader still holds its pid. */
function membersIn(procs: Map<number, ProcStat>, g: RecordedGroup): { members: number[]; leader: boolean } {
  if (!usable(g)) return { members: [], leader: false };
  const min = BigInt(g.leaderStartTime);
  const holder = procs.get(g.pgid);
  if (holder && holder.startTime !== min) return { members: [], leader: false };
  const members: number[] = [];
  for (const p of procs.values()) {
    if (p.state !== "Z" && (p.pgrp === g.pgid || p.session === g.pgid) && p.startTime >= min) members.push(p.pid);
  }
  return { members, leader: holder !== undefined };
}

/**
 * Pids of the live (non-zombie) processes that provably belong to the recorded group — the
 * leader included while it runs — by the rules above. Empty for an unusable record.
 */
export function recordedGroupMembers(g: RecordedGroup): number[] {
  return usable(g) ? membersIn(scanProcesses(), g).members : [];
}

function kill(target: number, signal: NodeJS.Signals): void {
  try {
    process.kill(target, signal);
  } catch (e) {
    // ESRCH: gone meanwhile. EPERM: not ours to signal (reported later as a survivor).
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== "ESRCH" && code !== "EPERM") throw e;
  }
}

/** Signals the members of each group found in one scan; returns how many each had. */
function signalAll(groups: readonly RecordedGroup[], signal: NodeJS.Signals): number[] {
  const procs = scanProcesses();
  return groups.map((g) => {
    const { members, leader } = membersIn(procs, g);
    if (members.length === 0) return 0;
    // While the verified leader holds the id, the group itself can be signalled: this also
    // reaches a child forked after the scan.
    if (leader) kill(-g.pgid, signal);
    for (const pid of members) kill(pid, signal);
    return members.length;
  });
}

/**
 * Sends `signal` to every member of the recorded group (and to the group itself while its
 * leader is verified). Returns how many members were found.
 */
export function signalRecordedGroup(g: RecordedGroup, signal: NodeJS.Signals): number {
  return usable(g) ? signalAll([g], signal)[0]! : 0;
}

function delay(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Bounds of {@link terminateRecordedGroups}. */
export interface TerminateOptions {
  /** How long members get after SIGTERM before SIGKILL (default 3000 ms). */
  graceMs?: number;
  /** How long to wait for SIGKILLed members to disappear (default 2000 ms). */
  killWaitMs?: number;
}

// One /proc scan serves every group per step; the step grows so a long wait stays cheap on a
// busy machine (a scan reads every process's stat file).
const POLL_MIN_MS = 20;
const POLL_MAX_MS = 200;

/**
 * SIGTERM, bounded wait, SIGKILL (repeated, so children forked meanwhile die too), bounded
 * wait — for several groups at once. Resolves with the members of each group still alive at the
 * end (same order as `groups`): all empty means everything is gone.
 */
export async function terminateRecordedGroups(groups: readonly RecordedGroup[], opts: TerminateOptions = {}): Promise<number[][]> {
  const live = groups.filter(usable);
  const survivorsOf = (): number[][] => {
    const procs = scanProcesses();
    return groups.map((g) => (usable(g) ? membersIn(procs, g).members : []));
  };
  if (live.length === 0 || signalAll(live, "SIGTERM").every((n) => n === 0)) return groups.map(() => []);
  let step = POLL_MIN_MS;
  const graceEnd = Date.now() + (opts.graceMs ?? 3000);
  while (Date.now() < graceEnd) {
    await delay(Math.min(step, Math.max(0, graceEnd - Date.now())));
    step = Math.min(step * 2, POLL_MAX_MS);
    const left = survivorsOf();
    if (left.every((m) => m.length === 0)) return left;
  }
  step = POLL_MIN_MS;
  const killEnd = Date.now() + (opts.killWaitMs ?? 2000);
  for (;;) {
    if (signalAll(live, "SIGKILL").every((n) => n === 0)) return groups.map(() => []);
    if (Date.now() >= killEnd) return survivorsOf();
    await delay(step);
    step = Math.min(step * 2, POLL_MAX_MS);
  }
}

/** {@link terminateRecordedGroups} for one group: the members still alive at the end. */
export async function terminateRecordedGroup(g: RecordedGroup, opts: TerminateOptions = {}): Promise<number[]> {
  return (await terminateRecordedGroups([g], opts))[0]!;
}
