import { readdirSync, readFileSync, readlinkSync, statSync } from "node:fs";

/**
 * SBX-4.7: whether a git process is held by a named FIFO, and which. git opens its own files
 * (the index, HEAD, refs, objects) with a blocking read; a confined agent can plant a FIFO as
 * one of them in its worktree's git dirs, and git then waits in the open (no writer: the kernel
 * reports `wait_for_partner`) or in the read (a writer the agent keeps open) until its timeout.
 * Linux's `/proc` answers both without touching the FIFO. Returns the FIFO's path, "a FIFO"
 * when git is still opening one, or null (also when `/proc` cannot tell: the timeout remains).
 */
export function fifoHolding(pid: number): string | null {
  try {
    if (readFileSync(`/proc/${pid}/wchan`, "utf8").trim() === "wait_for_partner") return "a FIFO";
  } catch {
    return null;
  }
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return null;
  }
  for (const fd of fds) {
    if (Number(fd) < 3) continue;
    try {
      const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      // pipe:[…], socket:[…] and anon_inode:… are git's own channels (fd 3 of a credential helper included).
      if (target.startsWith("/") && statSync(`/proc/${pid}/fd/${fd}`).isFIFO()) return target;
    } catch {
      // closed meanwhile
    }
  }
  return null;
}
