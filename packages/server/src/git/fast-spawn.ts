import { EventEmitter } from "node:events";
import { closeSync, openSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { Socket } from "node:net";
import { constants } from "node:os";
import { delimiter, join, resolve } from "node:path";
import type { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";

/**
 * A child process started without a fork (native/grove-spawn.c: posix_spawn, which shares the
 * parent's memory until exec): what a git start costs on a guest where page-table changes are
 * dear falls by about 40 % (docs/decisions/2026-12-07-git-without-fork.md). The runner uses the
 * same surface as Node's ChildProcess: `pid`, the standard streams and descriptor 3, `kill`, and
 * `exit` then `close` once the process ended and its output streams were read to the end.
 */
export interface StartedChild extends EventEmitter {
  readonly pid?: number | undefined;
  readonly stdin: Writable | null;
  readonly stdout: Readable | null;
  readonly stderr: Readable | null;
  /** stdin, stdout, stderr and, when asked for, descriptor 3 (written by the parent). */
  readonly stdio: readonly (Readable | Writable | null | undefined)[];
  kill(signal?: NodeJS.Signals): boolean;
}

interface NativeSpawn {
  spawn(file: string, argv: string[], envp: string[], cwd: string, fds: number[], setsid: boolean): number;
  wait(pid: number, done: (code: number, signal: number) => void): void;
  pipe(): [number, number];
}

/** Where scripts/build-native.mjs puts the addon (the server bundle keeps this file's URL). */
const ADDON = fileURLToPath(new URL("../../dist/native/grove-spawn.node", import.meta.url));

let loaded: NativeSpawn | null | undefined;
let started = 0;

/** Children this process started through the addon (a test checks that git's seam uses it). */
export function nativeStartCount(): number {
  return started;
}

/** The addon, or null when it was not built here (no compiler, no headers): then Node's spawn is used. */
export function nativeSpawn(): NativeSpawn | null {
  if (loaded === undefined) {
    try {
      loaded = createRequire(import.meta.url)(ADDON) as NativeSpawn;
    } catch {
      loaded = null;
    }
  }
  return loaded;
}

const SIGNAL_NAMES = new Map<number, NodeJS.Signals>(Object.entries(constants.signals).map(([name, n]) => [n, name as NodeJS.Signals]));

function isExecutableFile(path: string): boolean {
  const s = statSync(path, { throwIfNoEntry: false });
  // Any execute bit: the kernel decides at exec whether this user may run it, as it does for Node's spawn.
  return s !== undefined && s.isFile() && (s.mode & 0o111) !== 0;
}

/** `file` looked up as execvp would, in the child's PATH (Node's spawn does the same). */
function executable(file: string, path: string | undefined, cwd: string): string {
  if (file.includes("/")) return resolve(cwd, file);
  for (const dir of (path ?? "/usr/local/bin:/usr/bin:/bin").split(delimiter)) {
    const candidate = resolve(cwd, join(dir === "" ? "." : dir, file));
    if (isExecutableFile(candidate)) return candidate;
  }
  throw Object.assign(new Error(`spawn ${file} ENOENT`), { code: "ENOENT" });
}

class NativeChild extends EventEmitter implements StartedChild {
  readonly stdin: Writable | null;
  readonly stdout: Readable | null;
  readonly stderr: Readable | null;
  readonly stdio: readonly (Readable | Writable | null | undefined)[];
  private ended = false;
  private openReads = 0;
  private exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;

  constructor(
    readonly pid: number,
    streams: (Socket | null)[],
  ) {
    super();
    this.stdio = streams;
    this.stdin = streams[0] ?? null;
    this.stdout = streams[1] ?? null;
    this.stderr = streams[2] ?? null;
    for (const s of [this.stdout, this.stderr]) {
      if (!s) continue;
      this.openReads += 1;
      s.once("close", () => {
        this.openReads -= 1;
        this.maybeClose();
      });
    }
  }

  exited(code: number, signal: number): void {
    this.exit = signal !== 0 ? { code: null, signal: SIGNAL_NAMES.get(signal) ?? "SIGKILL" } : { code, signal: null };
    this.emit("exit", this.exit.code, this.exit.signal);
    this.maybeClose();
  }

  private maybeClose(): void {
    if (this.ended || this.exit === null || this.openReads > 0) return;
    this.ended = true;
    this.emit("close", this.exit.code, this.exit.signal);
  }

  kill(signal: NodeJS.Signals = "SIGTERM"): boolean {
    if (this.exit !== null) return false;
    try {
      process.kill(this.pid, signal);
      return true;
    } catch {
      return false;
    }
  }
}

/**
 * Starts `file` with `args` through the addon, or returns null when the addon is not there.
 * `stdio[i]` "pipe" makes a pipe (the parent writes descriptors 0 and 3, reads 1 and 2),
 * "ignore" gives the child /dev/null; `detached` makes it the leader of a new session and process
 * group, as Node's `detached: true` does. Throws (nothing started, nothing left open) when the
 * file is not found or a string holds a NUL byte.
 */
export function spawnWithoutFork(
  file: string,
  args: readonly string[],
  opts: { cwd: string; env: NodeJS.ProcessEnv; stdio: readonly ("pipe" | "ignore")[]; detached: boolean },
): StartedChild | null {
  const native = nativeSpawn();
  if (native === null) return null;
  const path = executable(file, opts.env.PATH, opts.cwd);
  const envp = Object.entries(opts.env).flatMap(([k, v]) => (v === undefined ? [] : [`${k}=${v}`]));
  const childEnds: number[] = [];
  const parentEnds: (number | null)[] = [];
  let pid: number;
  try {
    opts.stdio.forEach((how, i) => {
      const writtenByParent = i === 0 || i === 3;
      if (how === "ignore") {
        childEnds.push(openSync("/dev/null", writtenByParent ? "r" : "w"));
        parentEnds.push(null);
        return;
      }
      const [read, write] = native.pipe();
      childEnds.push(writtenByParent ? read : write);
      parentEnds.push(writtenByParent ? write : read);
    });
    pid = native.spawn(path, [file, ...args], envp, opts.cwd, childEnds, opts.detached);
  } catch (e) {
    for (const fd of parentEnds) if (fd !== null) closeSync(fd);
    throw e;
  } finally {
    for (const fd of childEnds) closeSync(fd);
  }
  const streams = parentEnds.map((fd, i) => {
    if (fd === null) return null;
    const writtenByParent = i === 0 || i === 3;
    return new Socket({ fd, readable: !writtenByParent, writable: writtenByParent });
  });
  started += 1;
  const child = new NativeChild(pid, streams);
  native.wait(pid, (code, signal) => child.exited(code, signal));
  return child;
}
