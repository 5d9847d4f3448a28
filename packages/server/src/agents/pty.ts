/**
 * The terminal's process seam: a login shell in a pseudo-terminal (node-pty), and the editor
 * launcher. Both live in agents/ because only git/ and agents/ start processes; neither ever
 * goes through a shell command line built from input (argv arrays only).
 */
import { spawn } from "node:child_process";
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
}

/** Starts the person's shell (`$SHELL`, else bash) in `cwd`, without the server's secrets. */
export function spawnShell(opts: { cwd: string; cols: number; rows: number; env: NodeJS.ProcessEnv }): Pty {
  const shell = opts.env.SHELL && opts.env.SHELL.startsWith("/") ? opts.env.SHELL : "/bin/bash";
  const p: IPty = spawnPtyProcess(shell, [], { name: "xterm-256color", cwd: opts.cwd, cols: opts.cols, rows: opts.rows, env: childEnv(opts.env, { TERM: "xterm-256color" }) as Record<string, string> });
  return {
    pid: p.pid,
    write: (d) => p.write(d),
    resize: (c, r) => p.resize(c, r),
    onData: (fn) => void p.onData(fn),
    onExit: (fn) => void p.onExit((e) => fn(e.exitCode)),
    kill(signal = "SIGHUP") {
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
