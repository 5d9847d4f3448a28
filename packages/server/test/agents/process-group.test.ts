import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { recordedGroupMembers, terminateRecordedGroup, type RecordedGroup } from "../../src/agents/process-group.js";
import { isAlive, readStartTime } from "../../src/agents/process-info.js";
import { waitFor } from "../fixture/server.js";

/** pgrp (field 5) of a live process, or null. */
function pgrpOf(pid: number): number | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(
      text
        .slice(text.lastIndexOf(")") + 1)
        .trim()
        .split(/\s+/)[2],
    );
  } catch {
    return null;
  }
}

/** Group ids this file created: killed whole after each test (they are ours by construction). */
const started: number[] = [];

/**
 * A detached `sh` (own session and group, like an agent) that starts `script` in the
 * background and then waits for its stdin to close; `release()` makes the leader exit.
 */
async function group(script: string): Promise<{ leader: ChildProcess; g: RecordedGroup; members: () => number[]; release(): Promise<void> }> {
  const leader = spawn("sh", ["-c", `${script}\nread x`], { detached: true, stdio: ["pipe", "ignore", "ignore"] });
  await new Promise((r) => leader.once("spawn", r));
  const pgid = leader.pid!;
  const g = { pgid, leaderStartTime: readStartTime(pgid)! };
  const exited = new Promise((r) => leader.once("exit", r));
  started.push(pgid);
  const members = () => recordedGroupMembers(g);
  await waitFor(() => members().length >= 2, "the background children");
  return {
    leader,
    g,
    members,
    async release() {
      leader.stdin!.end();
      await exited;
    },
  };
}

/** Whether `pid` ignores SIGTERM (its /proc status SigIgn mask has signal 15's bit). */
function ignoresTerm(pid: number): boolean {
  try {
    const mask = /^SigIgn:\s*([0-9a-f]+)$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    return mask !== undefined && (BigInt(`0x${mask}`) & (1n << 14n)) !== 0n;
  } catch {
    return false;
  }
}

describe("SEC-7 recorded agent process groups (agents/process-group.ts)", () => {
  afterEach(() => {
    for (const pgid of started.splice(0)) {
      try {
        process.kill(-pgid, "SIGKILL");
      } catch {
        // already gone
      }
    }
  });

  it("SEC-7 a group whose leader is dead is still found and stopped whole (children, and a job-control child in its own group of the session)", async () => {
    // perl's setpgrp moves one child into a group of its own, as a job-control shell would.
    const gr = await group("sleep 900 &\nsleep 900 &\nperl -e 'setpgrp(0,0); sleep 900' &");
    await gr.release();
    expect(isAlive(gr.g.pgid)).toBe(false);
    // Waits until perl has run its setpgrp too (a loaded machine may count the three before it did).
    const members = await waitFor(() => {
      const now = gr.members();
      return now.length >= 3 && now.some((p) => pgrpOf(p) !== gr.g.pgid) ? now : undefined;
    }, "the orphaned members, one of them in a group of its own");
    // One member left the group (job control) but not the session: still found.
    expect(members.some((p) => pgrpOf(p) !== gr.g.pgid)).toBe(true);
    expect(await terminateRecordedGroup(gr.g, { graceMs: 1000 })).toEqual([]);
    for (const pid of members) expect(isAlive(pid)).toBe(false);
  });

  it("SEC-7 a live leader and its children die together; TERM-ignoring members are SIGKILLed after the grace period", async () => {
    const gr = await group("sh -c 'trap \"\" TERM; while :; do sleep 1; done' &\nsleep 900 &");
    // Waits until the inner shell has run its trap (SigIgn carries SIGTERM, bit 15): on a loaded
    // machine TERM can arrive before it did, and the member then dies at once, before any grace.
    await waitFor(() => gr.members().some(ignoresTerm) || undefined, "a member that ignores SIGTERM");
    const members = gr.members();
    expect(members).toContain(gr.g.pgid);
    const t0 = Date.now();
    expect(await terminateRecordedGroup(gr.g, { graceMs: 300 })).toEqual([]);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(300);
    for (const pid of members) expect(isAlive(pid)).toBe(false);
  });

  it("SEC-7 a pid reused by an unrelated process is never signalled: the recorded start time does not match", async () => {
    // The unrelated process is itself a group leader with the recorded pid as its pgid.
    const stranger = await group("sleep 900 &");
    const startTime = BigInt(stranger.g.leaderStartTime);
    const strangers = stranger.members();
    for (const recorded of [startTime - 1n, startTime - 500n, startTime + 1n]) {
      const g = { pgid: stranger.g.pgid, leaderStartTime: String(recorded) };
      expect(recordedGroupMembers(g)).toEqual([]);
      expect(await terminateRecordedGroup(g, { graceMs: 50, killWaitMs: 50 })).toEqual([]);
    }
    for (const pid of strangers) expect(isAlive(pid)).toBe(true);
  });

  it("SEC-7 with the leader gone, processes that predate the recorded leader are never signalled", async () => {
    const other = await group("sleep 900 &\nsleep 900 &");
    await other.release();
    const orphans = await waitFor(() => (other.members().length >= 2 ? other.members() : undefined), "the orphans");
    // A record claiming a leader that started after these processes: they cannot be its members.
    const later = BigInt(Math.max(...orphans.map((p) => Number(readStartTime(p)!)))) + 1n;
    const g = { pgid: other.g.pgid, leaderStartTime: String(later) };
    expect(recordedGroupMembers(g)).toEqual([]);
    await terminateRecordedGroup(g, { graceMs: 50, killWaitMs: 50 });
    for (const pid of orphans) expect(isAlive(pid)).toBe(true);
  });

  it("SEC-7 an unusable record (pid ≤ 1, unknown start time) signals nothing", async () => {
    expect(recordedGroupMembers({ pgid: 1, leaderStartTime: "0" })).toEqual([]);
    expect(recordedGroupMembers({ pgid: process.pid, leaderStartTime: "" })).toEqual([]);
    expect(await terminateRecordedGroup({ pgid: 0, leaderStartTime: "0" })).toEqual([]);
  });
});
