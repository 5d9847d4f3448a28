import { childEnv } from "../domain/child-env.js";
import { spawn } from "node:child_process";

/** The outcome of a per-repository setup script (WT-9). Never throws: a failure is a warning. */
export interface SetupScriptResult {
  ok: boolean;
  exitCode: number | null;
  /** The last 4 KiB of stdout+stderr, for the session's warning message. */
  output: string;
  timedOut: boolean;
}

const TAIL_BYTES = 4096;

/**
 * WT-9: runs a repository's setup script (`sh -c <script>`) in a new worktree, with its own
 * process group (a timeout kills everything it started), stdin closed and the allow-listed
 * environment of every child (SEC-7). It lives in `git/` because this layer and `agents/`
 * are the only ones allowed to start processes, and it is part of preparing a worktree.
 * The script is the repository owner's configuration, not request input, so a shell is right.
 */
export function runSetupScript(input: { script: string; cwd: string; timeoutMs?: number; env?: Record<string, string> }): Promise<SetupScriptResult> {
  const timeoutMs = input.timeoutMs ?? 10 * 60_000;
  return new Promise((resolve) => {
    // SEC-7: the children's allow-list (no GIT_DIR & co., no tokens, no GROVE_*) plus what Grove
    // tells the script on purpose (`input.env`).
    const env: NodeJS.ProcessEnv = childEnv(process.env, input.env);
    let tail = Buffer.alloc(0);
    const keep = (chunk: Buffer): void => {
      tail = Buffer.concat([tail, chunk]);
      if (tail.length > TAIL_BYTES) tail = tail.subarray(tail.length - TAIL_BYTES);
    };
    let timedOut = false;
    const child = spawn("sh", ["-c", input.script], { cwd: input.cwd, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
      } catch {
        child.kill("SIGKILL");
      }
    }, timeoutMs);
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    child.on("error", (e) => {
      clearTimeout(timer);
      resolve({ ok: false, exitCode: null, output: e.message, timedOut: false });
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ ok: code === 0 && !timedOut, exitCode: code, output: tail.toString("utf8"), timedOut });
    });
  });
}
