import { spawn } from "node:child_process";
import { mkdirSync, openSync, readFileSync, readSync, closeSync, fstatSync, statSync } from "node:fs";
import { join } from "node:path";
import { childEnv } from "../domain/child-env.js";

/** What a finished command left: its exit code (null when a signal ended it), a timeout, the end of its output. */
export interface DetachedResult {
  exitCode: number | null;
  timedOut: boolean;
  output: string;
}

/** The end of the output a result keeps (the failures are at the end of a test run's log). */
export const OUTPUT_TAIL_BYTES = 4096;

/** `timeout`'s own exit code when the time ran out (GNU coreutils). */
const TIMED_OUT = 124;

/**
 * The wrapper (`/bin/sh`, outside any sandbox). `mkdir started` is the claim: a second start of
 * the same directory (a redo after a crash) finds it and does nothing, so the command runs once.
 * `timeout` runs the command in a process group of its own and kills it when the time is up;
 * its pid is kept so a cancel can kill that group. The exit code is renamed into place last:
 * `exit` exists only once the output is complete.
 * $1 the directory, $2 seconds, then the command and its args.
 */
const WRAPPER = `d="$1"; s="$2"; shift 2
mkdir "$d/started" 2>/dev/null || exit 0
timeout -k 5 "$s" "$@" </dev/null >"$d/output" 2>&1 &
echo $! >"$d/pid"
wait $!
echo $? >"$d/exit.tmp" && mv "$d/exit.tmp" "$d/exit"`;

/**
 * WF-2.13: starts `command args` in `cwd` as a detached job whose state lives in `dir`: it
 * outlives this process (a kill -9 of the server leaves it running to its end, and the
 * restarted server reads its result), and starting the same `dir` twice runs it once.
 * `env` is the command's own variables over the children's allow-list (SEC-7).
 */
export async function startDetached(input: {
  dir: string;
  command: string;
  args: readonly string[];
  cwd: string;
  env: Record<string, string | undefined>;
  inheritEnv?: readonly string[];
  timeoutSeconds: number;
}): Promise<void> {
  mkdirSync(input.dir, { recursive: true });
  const child = spawn("/bin/sh", ["-c", WRAPPER, "grove-run", input.dir, String(input.timeoutSeconds), input.command, ...input.args], {
    cwd: input.cwd,
    env: childEnv(process.env, input.env, input.inheritEnv),
    detached: true,
    stdio: "ignore",
  });
  await new Promise<void>((resolve, reject) => {
    child.once("spawn", resolve);
    child.once("error", reject);
  });
  child.unref();
}

/** The result once the command has ended (its `exit` file is written), else undefined. */
export function detachedResult(dir: string): DetachedResult | undefined {
  let code: string;
  try {
    code = readFileSync(join(dir, "exit"), "utf8").trim();
  } catch {
    return undefined;
  }
  const n = Number(code);
  const timedOut = n === TIMED_OUT;
  // sh reports a command killed by signal N as 128 + N: no exit code of its own.
  return { exitCode: timedOut || !Number.isInteger(n) || n >= 128 ? null : n, timedOut, output: tail(join(dir, "output")) };
}

/** When the command was started (its claim), or undefined when it never was. */
export function detachedStartedAt(dir: string): number | undefined {
  try {
    return statSync(join(dir, "started")).mtimeMs;
  } catch {
    return undefined;
  }
}

/** Kills the command's process group (a cancel); nothing when it has ended or never started. */
export function killDetached(dir: string): void {
  try {
    const pid = Number(readFileSync(join(dir, "pid"), "utf8").trim());
    if (Number.isInteger(pid) && pid > 1 && detachedResult(dir) === undefined) process.kill(-pid, "SIGKILL");
  } catch {
    // Ended already, or never started.
  }
}

function tail(path: string): string {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return "";
  }
  try {
    const size = fstatSync(fd).size;
    const len = Math.min(size, OUTPUT_TAIL_BYTES);
    const buf = Buffer.alloc(len);
    readSync(fd, buf, 0, len, size - len);
    // A cut in the middle of a UTF-8 sequence shows as one replacement character at the start.
    return buf.toString("utf8");
  } finally {
    closeSync(fd);
  }
}
