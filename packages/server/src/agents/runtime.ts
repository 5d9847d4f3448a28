import { existsSync } from "node:fs";
import { AppError, isAppError } from "../domain/errors.js";
import { AcpClientConnection, type SessionSetup } from "./acp-connection.js";
import { acpSdk, loadedAcpSdk } from "./acp-sdk.js";
import { applyPreferences, authMethodsOf, authRequiredError, envAuthMethod, isAuthRequired, type AuthMethodInfo } from "./agent-setup.js";
import { LiveAgentHandle } from "./agent-handle.js";
import { AgentProcess } from "./agent-process.js";

export type { AgentEvent, PermissionAsk, SessionSetup } from "./acp-connection.js";
export type { TurnUsage } from "./agent-events.js";
export type { AgentCallbacks, AgentHandle, StartAgentInput } from "./agent-contract.js";
import type { AgentHandle, StartAgentInput } from "./agent-contract.js";

// JSON-RPC "request cancelled": what a request rejects with when its timeout signal fires.
const REQUEST_CANCELLED = -32800;
const EXIT_WAIT_MS = 1000;
/**
 * AG-3.4: how long after `initialize` was sent a start waits for the first `_auth/status_update`
 * of an agent that advertises it. The Claude bridge probes its CLI (`claude auth status`) when
 * `initialize` arrives and gives that probe 5 s before it stays silent; a bound anchored at
 * `initialize` and longer than the probe's own means every probe that answers is seen, however
 * long `session/new` took or however loaded the machine is. The wait is usually nil (the push
 * came during `session/new`); only a silent agent costs the rest of the bound, and then its
 * first turn reports agent_auth_required instead.
 */
export const AUTH_STATUS_DEADLINE_MS = 6500;

/**
 * The one seam for agent processes (SES-4, SES-5): starts an agent per Grove session, keeps the
 * live handles, and stops them. Holds no database state; the caller records pid + start time.
 */
export class AgentRuntime {
  private readonly handles = new Map<string, LiveAgentHandle>();
  /**
   * Sessions whose agent is starting: `ended` resolves when start() has finished, whichever way
   * (its process killed on failure); `stopRequested` is a stop() that came while the process was
   * being spawned, with no process to kill yet (SES-5.8).
   */
  private readonly starting = new Map<string, { ended: Promise<void>; stopRequested: boolean }>();
  /** Processes of agents still in initialize / session/new|load: stop() must reach them too. */
  private readonly startingProcs = new Map<string, AgentProcess>();
  /** SES-5.9: set by {@link close}; a start from then on is refused, however far it got. */
  private closed = false;
  private readonly startTimeoutMs: number;
  private readonly authStatusDeadlineMs: number;

  /**
   * `startTimeoutMs` bounds each of initialize and session/new|load (default 60 s: npx may
   * install); `authStatusDeadlineMs` is {@link AUTH_STATUS_DEADLINE_MS}.
   */
  constructor(opts?: { startTimeoutMs?: number; authStatusDeadlineMs?: number }) {
    this.startTimeoutMs = opts?.startTimeoutMs ?? 60_000;
    this.authStatusDeadlineMs = opts?.authStatusDeadlineMs ?? AUTH_STATUS_DEADLINE_MS;
  }

  /**
   * Spawns the profile's command (own process group, cwd, env = the SEC-7 allow-list of the
   * server's environment + profile.inheritEnv, then profile.env; stdio
   * pipes), then `initialize` and `session/new` or `session/load`. Any failure →
   * AppError("agent_start_failed") with the stderr tail, and the process group is killed.
   */
  async start(input: StartAgentInput): Promise<AgentHandle> {
    const { sessionId, profile, cwd } = input;
    if (this.handles.has(sessionId) || this.starting.has(sessionId)) {
      throw new AppError("session_busy", `an agent is already running for session ${sessionId}`, { sessionId });
    }
    if (this.closed) throw stoppingError(profile.name, "spawn");
    let ended = () => {};
    const entry = { ended: new Promise<void>((r) => (ended = r)), stopRequested: false };
    this.starting.set(sessionId, entry);
    let proc: AgentProcess | undefined;
    let conn: AcpClientConnection | undefined;
    let step = "spawn";
    let authMethods: AuthMethodInfo[] = [];
    try {
      if (!existsSync(cwd)) throw new AppError("agent_start_failed", `the agent's working directory does not exist: ${cwd}`, { agent: profile.name, cwd });
      proc = await AgentProcess.spawn(profile.command, profile.args, cwd, { ...profile.env, ...input.extraEnv }, profile.inheritEnv);
      this.startingProcs.set(sessionId, proc);
      // SES-5.8, SES-5.9: a stop() or close() during the spawn could not reach this process: it is killed below.
      if (this.closed) throw stoppingError(profile.name, step);
      if (entry.stopRequested) throw stoppedError(profile.name, step);
      const startTime = proc.startTime;
      const started = proc;
      const sdk = await acpSdk();
      conn = new AcpClientConnection(
        {
          output: proc.child.stdin,
          input: proc.child.stdout,
          logFile: input.logFile,
          permissionPolicy: profile.permissionPolicy,
          onEvent: (e) => input.callbacks.onEvent(e),
          onPermission: (ask) => input.callbacks.onPermission(ask),
          ...(input.callbacks.onElicitation ? { onElicitation: input.callbacks.onElicitation.bind(input.callbacks) } : {}),
        },
        sdk,
      );
      const connection = conn;
      // A dead agent cannot answer: fail pending requests now instead of at the timeout.
      void proc.exited.then(() => connection.close());
      step = "initialize";
      const initSentAt = Date.now();
      const init = await conn.initialize(this.startTimeoutMs);
      authMethods = authMethodsOf(init);
      input.onInitialize?.(init);
      // AG-3: an agent that reads its key only once told to (codex-acp) is signed in with it.
      const method = envAuthMethod(init, proc.env);
      if (method !== undefined) {
        step = "authenticate";
        await conn.authenticate(method, this.startTimeoutMs);
      }
      let acpSessionId: string | undefined;
      let setup: SessionSetup | undefined;
      let resumed = false;
      if (input.resume && init.agentCapabilities?.loadSession) {
        step = "session/load";
        try {
          setup = await conn.loadSession(input.resume.acpSessionId, cwd, this.startTimeoutMs, input.mcpServers ?? []);
          acpSessionId = input.resume.acpSessionId;
          resumed = true;
        } catch (e) {
          if (started.hasExited || conn.signal.aborted || isAuthRequired(e)) throw e;
          // The agent does not know the session any more: a new one (the caller adds a summary).
        }
      }
      if (acpSessionId === undefined) {
        step = "session/new";
        const created = await conn.newSession(cwd, this.startTimeoutMs, input.mcpServers ?? []);
        acpSessionId = created.sessionId;
        setup = created;
      }
      // AG-3: an agent that pushes its identity and has none fails now, not at the first prompt.
      if ((init.agentCapabilities?._meta as Record<string, unknown> | undefined)?.authStatus !== undefined) {
        const kind = await conn.authStatus(initSentAt + this.authStatusDeadlineMs - Date.now());
        if (kind === "none") throw sdk.RequestError.authRequired(undefined, "the agent reports no credentials (auth status: none)");
      }
      step = "session/set_mode";
      setup = await applyPreferences(conn, acpSessionId, setup ?? { configOptions: [] }, input, this.startTimeoutMs);
      if (started.hasExited) throw new Error("the agent exited right after starting its session");
      if (this.closed) throw stoppingError(profile.name, step);
      const handle = new LiveAgentHandle(started, connection, startTime, acpSessionId, resumed, setup, input.callbacks, profile, authMethods, () => {
        if (this.handles.get(sessionId) === handle) this.handles.delete(sessionId);
      });
      this.handles.set(sessionId, handle);
      return handle;
    } catch (e) {
      const RequestError = loadedAcpSdk()?.RequestError;
      const timedOut = RequestError !== undefined && e instanceof RequestError && e.code === REQUEST_CANCELLED;
      // A closed connection usually means the process is exiting: wait a moment for its code,
      // and read how it ended before we kill it ourselves.
      if (proc && conn?.signal.aborted && !timedOut) {
        await Promise.race([proc.exited, new Promise((r) => setTimeout(r, EXIT_WAIT_MS))]);
        await proc.stderrSettled(EXIT_WAIT_MS);
      }
      const exit = proc?.exit;
      await conn?.close();
      await proc?.kill(0);
      if (isAppError(e) && e.code === "agent_start_failed") throw e;
      if (isAuthRequired(e)) throw authRequiredError(profile, e, authMethods, proc?.stderrTail ?? "");
      const reason = timedOut ? `no answer within ${this.startTimeoutMs} ms` : e instanceof Error ? e.message : String(e);
      const exited = exit ? ` (the process exited with code ${exit.code}, signal ${exit.signal})` : "";
      throw new AppError("agent_start_failed", `agent ${profile.name} failed to start: ${step}: ${reason}${exited}`, {
        agent: profile.name,
        step,
        exitCode: exit?.code ?? null,
        signal: exit?.signal ?? null,
        stderr: proc?.stderrTail ?? "",
      });
    } finally {
      this.starting.delete(sessionId);
      this.startingProcs.delete(sessionId);
      ended();
    }
  }

  /** Agents running or starting in this process (the runner's live load). */
  liveCount(): number {
    return new Set([...this.handles.keys(), ...this.starting.keys()]).size;
  }

  /** USE-2: the sessions with a live agent in this process (a daily cap cancels their turns). */
  sessionIds(): string[] {
    return [...this.handles.keys()];
  }

  /** The live handle of a Grove session (removed when its process exits). */
  get(sessionId: string): AgentHandle | undefined {
    return this.handles.get(sessionId);
  }

  /** Whether an agent of the session is still starting (no handle yet). */
  isStarting(sessionId: string): boolean {
    return this.starting.has(sessionId);
  }

  /**
   * Stops the session's agent, if any — a starting one too: its process group is killed and
   * its start() fails with `agent_start_failed` (cleanup must not wait for a start timeout).
   */
  async stop(sessionId: string, opts?: { graceMs?: number }): Promise<void> {
    const proc = this.startingProcs.get(sessionId);
    const entry = this.starting.get(sessionId);
    if (proc) await proc.kill(opts?.graceMs ?? 3000);
    else if (entry) {
      // Still spawning: the start sees the request as soon as its process exists, fails and kills it.
      entry.stopRequested = true;
      await entry.ended;
    }
    await this.handles.get(sessionId)?.stop(opts);
  }

  /**
   * Server shutdown (SES-5.9): no agent starts any more, then every live or starting one is
   * stopped. A launch still on its way (a worktree being made, a sandbox being prepared) that
   * reaches start() afterwards fails with `agent_start_failed` (`reason: "server_stopping"`)
   * instead of leaving an agent running after the server stopped.
   */
  async close(opts?: { graceMs?: number }): Promise<void> {
    this.closed = true;
    await this.stopAll(opts);
  }

  /** Stops every agent, live or starting; later starts are still accepted (see {@link close}). */
  async stopAll(opts?: { graceMs?: number }): Promise<void> {
    await Promise.all([...this.startingProcs.values()].map((p) => p.kill(opts?.graceMs ?? 3000)));
    await Promise.all([...this.handles.values()].map((h) => h.stop(opts)));
  }
}

/** SES-5.9: the refusal of a start that reached a closed runtime. */
function stoppingError(agent: string, step: string): AppError {
  return new AppError("agent_start_failed", `agent ${agent} was not started: the server is stopping`, { agent, step, reason: "server_stopping" });
}

/** SES-5.8: the failure of a start whose session was stopped while its process was spawning. */
function stoppedError(agent: string, step: string): AppError {
  return new AppError("agent_start_failed", `agent ${agent} was stopped while starting`, { agent, step, reason: "stopped" });
}
