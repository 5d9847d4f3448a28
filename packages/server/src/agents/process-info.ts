import { readFileSync } from "node:fs";

/**
 * Process identity on Linux. A pid alone is not an identity: after a crash of the server, the
 * pid it recorded for an agent may belong to an unrelated process by now. The pair
 * (pid, start time) is, because the kernel's start time (clock ticks since boot, field 22 of
 * `/proc/<pid>/stat`) never repeats for a recycled pid within one boot.
 */

/** The fields of `/proc/<pid>/stat` after the command name, or null when the process is gone. */
function statFields(pid: number): string[] | null {
  if (!Number.isInteger(pid) || pid <= 0) return null;
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return null;
  }
  // The command name (field 2) is in parentheses and may itself contain spaces and ')'; the
  // last ')' ends it. What follows starts with field 3 (the state).
  const close = text.lastIndexOf(")");
  if (close < 0) return null;
  return text
    .slice(close + 1)
    .trim()
    .split(/\s+/);
}

/**
 * Start time of `pid` (field 22 of `/proc/<pid>/stat`, clock ticks since boot) as a string, or
 * null when no such process exists. Stored next to the pid so a later check can tell the same
 * process from a recycled pid.
 */
export function readStartTime(pid: number): string | null {
  // fields[0] is field 3, so field 22 is fields[19].
  return statFields(pid)?.[19] ?? null;
}

/**
 * True when a process with this pid exists, has not exited (a zombie, exited but not yet
 * reaped, counts as gone) and started at `startTime`. Never true for a recycled pid.
 */
export function isSameProcess(pid: number, startTime: string): boolean {
  const fields = statFields(pid);
  if (!fields || fields[0] === "Z") return false;
  return fields[19] === startTime;
}

/** True when `pid` names a process that is still running (not a zombie). */
export function isAlive(pid: number): boolean {
  const fields = statFields(pid);
  return fields !== null && fields[0] !== "Z";
}
