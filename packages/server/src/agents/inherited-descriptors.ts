import { openSync, readdirSync, readFileSync } from "node:fs";

/** `O_CLOEXEC` as `/proc/<pid>/fdinfo` prints the flags (octal). */
const O_CLOEXEC = 0o2000000;

/**
 * SBX-1: the descriptors above 2 this process holds without close-on-exec: what whoever started
 * the server handed it and forgot (a terminal, a supervisor, a test runner). Node marks only the
 * lowest inherited descriptors close-on-exec at its start; Node's spawn and bwrap pass every other
 * one on, so an agent would get them, and a directory descriptor from outside is a way past every
 * mount the sandbox hides (`/proc/self/fd/N/..`).
 */
function inheritableDescriptors(): number[] {
  let names: string[];
  try {
    names = readdirSync("/proc/self/fd");
  } catch {
    return [];
  }
  const out: number[] = [];
  for (const name of names) {
    const fd = Number(name);
    if (!Number.isInteger(fd) || fd < 3) continue;
    let info: string;
    try {
      info = readFileSync(`/proc/self/fdinfo/${fd}`, "utf8");
    } catch {
      continue; // closed meanwhile (the listing's own descriptor)
    }
    const flags = /^flags:\s*([0-7]+)/m.exec(info)?.[1];
    if (flags !== undefined && (Number.parseInt(flags, 8) & O_CLOEXEC) === 0) out.push(fd);
  }
  return out.sort((a, b) => a - b);
}

let devNull: number | undefined;

/**
 * The `stdio` of an agent's spawn: pipes for 0–2 and /dev/null over each inherited descriptor, so
 * the agent (and bwrap before it) holds nothing of the server's past its standard streams.
 */
export function agentStdio(): ("pipe" | "ignore" | number)[] {
  const stdio: ("pipe" | "ignore" | number)[] = ["pipe", "pipe", "pipe"];
  const inherited = inheritableDescriptors();
  if (inherited.length === 0) return stdio;
  // Opened by Node, so close-on-exec itself: it is never one of the inherited.
  devNull ??= openSync("/dev/null", "r+");
  const covered = new Set(inherited);
  for (let fd = 3; fd <= inherited.at(-1)!; fd++) stdio.push(covered.has(fd) ? devNull : "ignore");
  return stdio;
}
