/**
 * The terminal's process seam: a login shell in a pseudo-terminal (node-pty), and the editor
 * launcher. Both live in agents/ because only git/ and agents/ start processes; neither ever
 * goes through a shell command line built from input (argv arrays only).
 */
import { spawn } from "node:child_process";
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { spawn as spawnPtyProcess, type IPty } from "node-pty";
import { childEnv } from "../domain/child-env.js";

/** A running pseudo-terminal. */
export interface Pty {
  readonly pid: number;
  write(data: string): void;
  resize(cols: number, rows: number): void;
  onData(fn: (data: string) => void): void;
  onExit(fn: (code: number) => void): void;
  /** SIGHUP to the shell's process group, like closing a terminal window; SIGKILL if asked. */
  kill(signal?: "SIGHUP" | "SIGKILL"): void;
  /**
   * Resolves once every process the shell started is gone, or after `ms` with false. In its own
   * pid namespace that is the whole namespace (TERM-6): its init is SIGKILLed when bwrap goes,
   * and the kernel reaps the rest a moment later, after the pty already reported the exit.
   */
  settled(ms: number): Promise<boolean>;
}

/** The pid-namespace inode of `pid`, or undefined once it is gone. */
function pidNamespace(pid: number): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/ns/pid`);
  } catch {
    return undefined;
  }
}

/** Host pids of the processes in pid namespace `ns`. */
function membersOf(ns: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    if (pidNamespace(Number(name)) === ns) out.push(Number(name));
  }
  return out;
}

/** The first child of `pid` (bwrap's init in the new namespace), read from /proc. */
function firstChild(pid: number): number | undefined {
  try {
    const tasks = readdirSync(`/proc/${pid}/task`);
    for (const t of tasks) {
      const children = readFileSyncSafe(`/proc/${pid}/task/${t}/children`).trim().split(/\s+/).filter(Boolean);
      if (children.length > 0) return Number(children[0]);
    }
  } catch {
    // gone
  }
  return undefined;
}

function readFileSyncSafe(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}

/**
 * Starts the person's shell (`$SHELL`, else bash) in `cwd`, without the server's secrets. `bwrap`:
 * the path of a bubblewrap that works here (probed by the caller), or undefined when there is none.
 */
export function spawnShell(opts: { cwd: string; cols: number; rows: number; env: NodeJS.ProcessEnv; bwrap: string | undefined }): Pty {
  const shell = opts.env.SHELL && opts.env.SHELL.startsWith("/") ? opts.env.SHELL : "/bin/bash";
  // TERM-6: the person's full access (`--dev-bind / /`), but a pid namespace of its own that dies
  // as a unit when bwrap goes (`--die-with-parent`), so `nohup` and `setsid` jobs cannot outlive
  // the task. Without bubblewrap the shell runs in its process group only.
  const bwrap = opts.bwrap;
  const [file, args] = bwrap
    ? [bwrap, ["--dev-bind", "/", "/", "--unshare-pid", "--die-with-parent", "--proc", "/proc", "--chdir", opts.cwd, "--", shell]]
    : [shell, []];
  const p: IPty = spawnPtyProcess(file, args, {
    name: "xterm-256color",
    cwd: opts.cwd,
    cols: opts.cols,
    rows: opts.rows,
    env: childEnv(opts.env, { TERM: "xterm-256color" }) as Record<string, string>,
  });
  let exited = false;
  p.onExit(() => (exited = true));
  // The namespace, read once bwrap has forked its init; kept so `settled` can wait for its members.
  let ns: string | undefined;
  const host = pidNamespace(process.pid);
  const learnNamespace = (): void => {
    if (ns || !bwrap) return;
    const init = firstChild(p.pid);
    const found = init === undefined ? undefined : pidNamespace(init);
    if (found && found !== host) ns = found;
  };
  return {
    settled: async (ms) => {
      const deadline = Date.now() + ms;
      for (;;) {
        const alive = !exited || (ns !== undefined && membersOf(ns).length > 0);
        if (!alive) return true;
        if (Date.now() >= deadline) return false;
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    pid: p.pid,
    write: (d) => p.write(d),
    resize: (c, r) => p.resize(c, r),
    onData: (fn) => void p.onData(fn),
    onExit: (fn) => void p.onExit((e) => fn(e.exitCode)),
    kill(signal = "SIGHUP") {
      learnNamespace();
      // The shell leads its own session: signal the whole group so its children go too.
      try {
        process.kill(-p.pid, signal);
      } catch {
        // already gone
      }
      try {
        p.kill(signal);
      } catch {
        // already gone
      }
    },
  };
}

/**
 * Runs the configured editor (`GROVE_EDITOR`, e.g. `code` or `cursor --reuse-window`) on a
 * path, detached. Resolves once the process started; rejects if it cannot be started.
 */
export function launchEditor(command: string, path: string, env: NodeJS.ProcessEnv): Promise<void> {
  const [bin, ...args] = command.trim().split(/\s+/);
  return new Promise((resolve, reject) => {
    const child = spawn(bin!, [...args, path], { detached: true, stdio: "ignore", env: childEnv(env) });
    child.once("error", reject);
    child.once("spawn", () => {
      child.unref();
      resolve();
    });
  });
}
