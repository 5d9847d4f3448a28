import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { childEnv } from "../domain/child-env.js";
import { AppError } from "../domain/errors.js";
import { agentStdio } from "./inherited-descriptors.js";
import { recordedGroupMembers, signalRecordedGroup, terminateRecordedGroup, type RecordedGroup } from "./process-group.js";
import { readStartTime } from "./process-info.js";

/** How an agent process ended. */
export interface ExitInfo {
  code: number | null;
  signal: string | null;
}

const STDERR_TAIL_BYTES = 4096;

/**
 * One spawned agent process: its own process group (so `npx → sh → node` trees die together),
 * a bounded stderr tail for error messages, and an exit promise. Knows nothing about ACP.
 */
export class AgentProcess {
  readonly exited: Promise<ExitInfo>;
  private exitInfo: ExitInfo | null = null;
  private stderr = "";
  private readonly stderrEnded: Promise<void>;

  /** The agent's process group and session (SEC-7): its pid and its start time. */
  readonly group: RecordedGroup;

  /**
   * `env`: the environment the agent was started with (AG-3 reads it to choose an auth method;
   * it may hold secrets and never leaves the server).
   */
  private constructor(
    readonly child: ChildProcessWithoutNullStreams,
    readonly pid: number,
    readonly startTime: string,
    readonly env: Readonly<Record<string, string | undefined>>,
  ) {
    this.group = { pgid: pid, leaderStartTime: startTime };
    this.exited = new Promise((resolve) => {
      child.once("exit", (code, signal) => {
        this.exitInfo = { code, signal };
        // Orphans of a dead agent (npx's node child, a tool it ran) serve nobody: end them too.
        signalRecordedGroup(this.group, "SIGKILL");
        resolve(this.exitInfo);
      });
    });
    // Always drain stderr: a full pipe would block the agent.
    this.stderrEnded = new Promise((resolve) => {
      child.stderr.once("end", () => resolve());
      child.stderr.once("close", () => resolve());
    });
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
  static async spawn(
    command: string,
    args: string[],
    cwd: string,
    env: Record<string, string | undefined>,
    inheritEnv: readonly string[] = [],
  ): Promise<AgentProcess> {
    const agentEnv = childEnv(process.env, env, inheritEnv);
    // 0–2 are pipes whatever else `agentStdio` covers (SBX-1: no inherited descriptor past them).
    const child = spawn(command, args, { cwd, env: agentEnv, detached: true, stdio: agentStdio() }) as ChildProcessWithoutNullStreams;
    await new Promise<void>((resolve, reject) => {
      child.once("spawn", resolve);
      child.once("error", (e) => reject(new AppError("agent_start_failed", `cannot start ${command}: ${e.message}`, { command })));
    });
    if (child.pid === undefined) throw new AppError("agent_start_failed", `cannot start ${command}`, { command });
    // Read at once: the pair (pid, start time) is what identifies the group after a crash.
    return new AgentProcess(child, child.pid, readStartTime(child.pid) ?? "", agentEnv);
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
   * AG-3: resolves once stderr reached its end (the agent and everything holding the pipe are
   * gone) or after `ms`: `exit` can come before the last of stderr is read, and the words an
   * agent dies with are what the person needs to see.
   */
  async stderrSettled(ms: number): Promise<void> {
    await Promise.race([this.stderrEnded, new Promise<void>((r) => setTimeout(r, ms).unref())]);
  }

  /**
   * Closes stdin, SIGTERMs the group (and every process of the agent's session), SIGKILLs what
   * is left after `graceMs`, and resolves when the process has exited. Resolves with the pids
   * of members still alive after a bounded wait (normally none).
   */
  async kill(graceMs: number): Promise<number[]> {
    this.child.stdin.end();
    const survivors = await terminateRecordedGroup(this.group, { graceMs });
    // A leader whose start time could not be read (it died at once) is not in the scan.
    if (!this.hasExited) this.child.kill("SIGKILL");
    await this.exited;
    return survivors.length > 0 ? recordedGroupMembers(this.group) : survivors;
  }

  /** Resolves once no member of the group is alive (polls /proc, gives up after `ms`). */
  async groupGone(ms = 2000): Promise<void> {
    const deadline = Date.now() + ms;
    while (recordedGroupMembers(this.group).length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  }
}
