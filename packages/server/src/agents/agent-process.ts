import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { childEnv } from "../domain/child-env.js";
import { AppError } from "../domain/errors.js";
import { killProcessGroup, processGroupMembers } from "./process-info.js";

/** How an agent process ended. */
export interface ExitInfo {
  code: number | null;
  signal: string | null;
}

const STDERR_TAIL_BYTES = 4096;

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * One spawned agent process: its own process group (so `npx → sh → node` trees die together),
 * a bounded stderr tail for error messages, and an exit promise. Knows nothing about ACP.
 */
export class AgentProcess {
  readonly exited: Promise<ExitInfo>;
  private exitInfo: ExitInfo | null = null;
  private stderr = "";

  private constructor(readonly child: ChildProcessWithoutNullStreams, readonly pid: number) {
    this.exited = new Promise((resolve) => {
      child.once("exit", (code, signal) => {
        this.exitInfo = { code, signal };
        // Orphans of a dead agent (npx's node child, a tool it ran) serve nobody: end them too.
        // Safe while a member lives, because then the group id cannot have been reused.
        try {
          if (processGroupMembers(pid).length > 0) killProcessGroup(pid, "SIGKILL");
        } catch {
          // Not ours to signal any more (EPERM): nothing else to do.
        }
        resolve(this.exitInfo);
      });
    });
    // Always drain stderr: a full pipe would block the agent.
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (d: string) => {
      this.stderr = (this.stderr + d).slice(-STDERR_TAIL_BYTES);
    });
    // EPIPE on a dead agent's stdin is reported through the exit, not as an uncaught error.
    child.stdin.on("error", () => undefined);
  }

  /**
   * Spawns `command args` detached in `cwd` with the allow-listed environment (SEC-7: base list +
   * `inheritEnv` from the server's, then `env`). Resolves once the process
   * exists; a command that cannot be started → AppError("agent_start_failed").
   */
  static async spawn(command: string, args: string[], cwd: string, env: Record<string, string>, inheritEnv: readonly string[] = []): Promise<AgentProcess> {
    const child = spawn(command, args, { cwd, env: childEnv(process.env, env, inheritEnv), detached: true, stdio: ["pipe", "pipe", "pipe"] });
    await new Promise<void>((resolve, reject) => {
      child.once("spawn", resolve);
      child.once("error", (e) => reject(new AppError("agent_start_failed", `cannot start ${command}: ${e.message}`, { command })));
    });
    if (child.pid === undefined) throw new AppError("agent_start_failed", `cannot start ${command}`, { command });
    return new AgentProcess(child, child.pid);
  }

  /** The process has exited (its group may still have members until {@link kill}). */
  get hasExited(): boolean {
    return this.exitInfo !== null;
  }

  get exit(): ExitInfo | null {
    return this.exitInfo;
  }

  /** Last few KB of the agent's stderr. */
  get stderrTail(): string {
    return this.stderr;
  }

  /**
   * Closes stdin, SIGTERMs the group, SIGKILLs it after `graceMs`, and resolves when the
   * process and every member of its group are gone.
   */
  async kill(graceMs: number): Promise<void> {
    this.child.stdin.end();
    if (!this.hasExited) killProcessGroup(this.pid, "SIGTERM");
    await Promise.race([this.exited, delay(graceMs)]);
    // Only signal the group while a member is known to be alive: after that the id could be reused.
    if (!this.hasExited || processGroupMembers(this.pid).length > 0) killProcessGroup(this.pid, "SIGKILL");
    await this.exited;
    await this.groupGone();
  }

  /** Resolves once no member of the process group is alive (polls /proc, gives up after `ms`). */
  async groupGone(ms = 2000): Promise<void> {
    const deadline = Date.now() + ms;
    while (processGroupMembers(this.pid).length > 0 && Date.now() < deadline) await delay(10);
  }
}
