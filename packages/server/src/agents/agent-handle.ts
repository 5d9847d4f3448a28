import { AppError, isAppError } from "../domain/errors.js";
import type { AgentConfigOption } from "../domain/agent-state.js";
import type { AcpClientConnection, SessionSetup } from "./acp-connection.js";
import { authRequiredError, isAuthRequired, type AuthMethodInfo } from "./agent-setup.js";
import type { AgentProfileConfig } from "./profiles.js";
import type { TurnUsage } from "./agent-events.js";
import type { AgentProcess } from "./agent-process.js";
import type { AgentCallbacks, AgentHandle } from "./agent-contract.js";

// How long a failed prompt waits for the process exit that explains it (stdout can end first).
const EXIT_WAIT_MS = 2000;
// A mode or model switch is a quick local change in every agent seen so far.
const SETTING_TIMEOUT_MS = 15_000;

/**
 * A live agent: one process, one ACP connection, one ACP session. Created by AgentRuntime once
 * the session exists; reports the process exit once to `callbacks.onExit` and to `onGone`.
 */
export class LiveAgentHandle implements AgentHandle {
  readonly pid: number;
  private turn = false;
  private turns = 0;
  private stopping: Promise<void> | null = null;
  /** Settles once the exit has been handled (connection closed, log flushed, onExit called). */
  private readonly gone: Promise<void>;

  constructor(
    private readonly proc: AgentProcess,
    private readonly conn: AcpClientConnection,
    readonly startTime: string,
    readonly acpSessionId: string,
    readonly resumed: boolean,
    readonly setup: SessionSetup,
    callbacks: AgentCallbacks,
    private readonly profile: AgentProfileConfig,
    private readonly authMethods: AuthMethodInfo[],
    onGone: () => void,
  ) {
    this.pid = proc.pid;
    this.gone = proc.exited.then(async (info) => {
      // duringTurn is read before the failed prompt clears `turn` (it waits for this exit).
      const duringTurn = this.turn;
      await conn.close();
      await proc.groupGone(); // the exit handler SIGKILLed what was left of the group
      onGone();
      try {
        callbacks.onExit({ ...info, duringTurn, pid: this.pid, startTime: this.startTime });
      } catch {
        // The consumer's failure must not become an unhandled rejection here.
      }
    });
  }

  get busy(): boolean {
    return this.turn;
  }

  async prompt(text: string | readonly string[]): Promise<{ stopReason: string; usage?: TurnUsage }> {
    const texts = typeof text === "string" ? [text] : text;
    if (this.turn) throw new AppError("session_busy", "a turn is already running in this agent");
    if (this.proc.hasExited || this.stopping) throw this.crashed();
    this.turn = true;
    const first = this.turns++ === 0;
    try {
      const turn = this.conn.prompt(this.acpSessionId, texts);
      const bound = this.profile.auth?.firstTurnProgressMs;
      if (!first || bound === undefined) return await turn;
      return await this.progressOrAuthRequired(turn, bound);
    } catch (e) {
      if (isAppError(e)) throw e;
      if (isAuthRequired(e)) throw authRequiredError(this.profile, e, this.authMethods, this.proc.stderrTail);
      if (this.proc.hasExited || this.conn.signal.aborted) {
        await Promise.race([this.proc.exited, new Promise((r) => setTimeout(r, EXIT_WAIT_MS))]);
        throw this.crashed();
      }
      const message = e instanceof Error ? e.message : String(e);
      throw new AppError("internal_error", `the agent answered session/prompt with an error: ${message}`, { cause: message });
    } finally {
      this.turn = false;
    }
  }

  /**
   * AG-3: the first turn of an agent known to hang without credentials must show progress (any
   * update) within `bound` ms; else the turn is cancelled and fails `agent_auth_required`. Such an
   * agent may instead give up by itself (opencode: "Cannot connect to API" once its retries of its
   * vendor's hosts are spent): an error answer before any update means the same.
   */
  private async progressOrAuthRequired(
    turn: Promise<{ stopReason: string; usage?: TurnUsage }>,
    bound: number,
  ): Promise<{ stopReason: string; usage?: TurnUsage }> {
    let moved = false;
    const watch = this.conn.nextUpdate(bound).then((m) => (moved = m));
    let first: { r: { stopReason: string; usage?: TurnUsage } } | undefined;
    try {
      first = await Promise.race([turn.then((r) => ({ r })), watch.then((m) => (m ? turn.then((r) => ({ r })) : undefined))]);
    } catch (e) {
      if (moved || this.proc.hasExited || this.conn.signal.aborted || isAuthRequired(e)) throw e;
      throw authRequiredError(
        this.profile,
        new Error(`its first turn failed before any progress: ${e instanceof Error ? e.message : String(e)}`),
        this.authMethods,
        this.proc.stderrTail,
      );
    }
    if (first !== undefined) return first.r;
    await this.conn.cancel(this.acpSessionId).catch(() => undefined);
    // The cancelled turn's own answer no longer matters (it may never come).
    turn.catch(() => undefined);
    throw authRequiredError(
      this.profile,
      new Error(`no progress within ${Math.round(bound / 1000)} s on its first turn`),
      this.authMethods,
      this.proc.stderrTail,
    );
  }

  async setMode(modeId: string): Promise<void> {
    // AG-2: an agent whose modes are a config option switches through that option.
    if (this.setup.modeOption !== undefined) await this.conn.setConfigOption(this.acpSessionId, this.setup.modeOption, modeId, SETTING_TIMEOUT_MS);
    else await this.conn.setMode(this.acpSessionId, modeId, SETTING_TIMEOUT_MS);
  }

  setConfigOption(configId: string, value: string): Promise<AgentConfigOption[]> {
    return this.conn.setConfigOption(this.acpSessionId, configId, value, SETTING_TIMEOUT_MS);
  }

  async cancel(): Promise<void> {
    if (this.proc.hasExited) return;
    await this.conn.cancel(this.acpSessionId).catch(() => undefined);
  }

  stop(opts?: { graceMs?: number }): Promise<void> {
    this.stopping ??= (async () => {
      await this.conn.close();
      await this.proc.kill(opts?.graceMs ?? 3000);
      await this.gone;
    })();
    return this.stopping;
  }

  private crashed(): AppError {
    const exit = this.proc.exit;
    const how = this.stopping ? "was stopped" : exit ? `exited (code ${exit.code}, signal ${exit.signal})` : "closed its connection";
    return new AppError("agent_crashed", `the agent process ${how} during a turn`, {
      pid: this.pid,
      exitCode: exit?.code ?? null,
      signal: exit?.signal ?? null,
      stderr: this.proc.stderrTail,
    });
  }
}
