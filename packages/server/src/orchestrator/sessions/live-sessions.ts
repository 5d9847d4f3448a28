import type { ElicitationAnswer, ElicitationAsk } from "../../agents/agent-contract.js";
import type { PermissionAsk } from "../../agents/runtime.js";
import { AppError } from "../../domain/errors.js";
import type { LastError, LastTurn } from "@grove/protocol";
import type { SessionRecord, SessionState } from "../../domain/records.js";
import { sessionView } from "../../domain/views.js";
import type { Deps } from "../context.js";
import { AgentStateRecorder } from "./agent-state-recorder.js";
import { SessionRecorder } from "./recorder.js";
import { refreshTaskState } from "../tasks/tasks.js";
import { UsageService } from "../usage/usage-service.js";

interface PendingAsk {
  sessionId: string;
  ask: PermissionAsk;
  resolve: (answer: { optionId: string } | "cancelled") => void;
}

/** The ports (orchestrator/context.ts) LiveSessions uses. */
export type LiveSessionsPorts = Pick<Deps, "store" | "agents" | "bus" | "log" | "runnerId" | "now" | "usage">;

/** MCP-3: an elicitation's answer for the agent, and the person's answers as they gave them. */
export interface PersonAnswer {
  reply: ElicitationAnswer;
  said: readonly string[];
}

/**
 * In-memory companions of sessions whose agents run in this process: message recorders,
 * pending permission questions, summaries waiting for the next prompt. The database stays
 * the truth for states; every state write here is a compare-and-set (SES-1).
 */
export class LiveSessions {
  private readonly recorders = new Map<string, SessionRecorder>();
  private readonly summaries = new Map<string, string>();
  private readonly asks = new Map<string, PendingAsk>();
  private readonly changeTimers = new Map<string, NodeJS.Timeout>();
  shuttingDown = false;
  /** LIVE-4: told when a permission request is answered or withdrawn (its inbox item is done). */
  onAskSettled: ((requestId: string) => void) | undefined;
  /** WEB-37: called when a turn ended with the session waiting for input (sends a queued follow-up). */
  onTurnWaiting: ((sessionId: string) => Promise<void>) | undefined;
  /** MCP-3: asks the person an agent's form elicitation (set by the orchestrator: the inbox's questions). */
  elicitationHandler: ((session: SessionRecord, ask: ElicitationAsk, signal: AbortSignal) => Promise<PersonAnswer>) | undefined;
  /** MCP-3: per session, the elicitations waiting for the person (the agent is waiting, not stalled). */
  private readonly elicitations = new Map<string, number>();

  /** USE-1/USE-2: usage recording, budgets and the gate of new turns. */
  readonly usage: UsageService;

  constructor(private readonly deps: LiveSessionsPorts) {
    this.usage = new UsageService(deps);
  }

  recorderFor(session: SessionRecord): SessionRecorder {
    let r = this.recorders.get(session.id);
    if (!r) {
      r = new SessionRecorder(this.deps, session.id, session.taskId);
      r.onToolDone = () => this.changesMayHaveChanged(session.taskId);
      r.agentState = new AgentStateRecorder(this.deps, session.id, session.agentState);
      r.usage = this.usage.recorderFor(session);
      this.recorders.set(session.id, r);
    }
    return r;
  }

  /** AG-2: the session's agent state as this process knows it (modes, options, choices). */
  agentStateFor(session: SessionRecord): AgentStateRecorder {
    const r = this.recorderFor(session);
    r.agentState ??= new AgentStateRecorder(this.deps, session.id, session.agentState);
    return r.agentState;
  }

  forget(sessionId: string): void {
    this.recorders.delete(sessionId);
    this.summaries.delete(sessionId);
    this.usage.forget(sessionId);
    this.cancelAsks(sessionId);
  }

  /** Answers every open question of the session "cancelled" (turn ended, cancel, agent exit). */
  cancelAsks(sessionId: string): void {
    for (const [id, a] of this.asks) {
      if (a.sessionId === sessionId) {
        a.resolve("cancelled");
        this.asks.delete(id);
        this.onAskSettled?.(id);
      }
    }
  }

  setPendingSummary(sessionId: string, summary: string): void {
    this.summaries.set(sessionId, summary);
  }

  takePendingSummary(sessionId: string): string | undefined {
    const s = this.summaries.get(sessionId);
    this.summaries.delete(sessionId);
    return s;
  }

  /** Permission policy "ask": the question waits for a person (POST …/permissions/:requestId). */
  askPermission(session: SessionRecord, ask: PermissionAsk): Promise<{ optionId: string } | "cancelled"> {
    const recorder = this.recorderFor(session);
    if (ask.toolCallId) recorder.toolAsked(ask.toolCallId, ask.title, ask.toolKind);
    recorder.note("system", `permission requested: ${ask.title}`, { permissionRequest: ask });
    return new Promise((resolve) => this.asks.set(ask.requestId, { sessionId: session.id, ask, resolve }));
  }

  /** MCP-3: an agent's form elicitation, as questions in the inbox; a transcript note says what it asked and how it ended. */
  async elicit(session: SessionRecord, ask: ElicitationAsk, signal: AbortSignal): Promise<ElicitationAnswer> {
    const handler = this.elicitationHandler;
    if (!handler) return { action: "decline" };
    const recorder = this.recorderFor(session);
    recorder.note("system", `question from the agent: ${ask.message}`, { elicitation: "asked" });
    this.elicitations.set(session.id, (this.elicitations.get(session.id) ?? 0) + 1);
    try {
      const { reply, said } = await handler(session, ask, signal);
      // What the person chose, in their words (WEB-41): the form's content may hold an option's value, not its title.
      const answered = said.length > 0 ? `answered ${said.map((a) => JSON.stringify(a)).join(", ")}` : "answered";
      recorder.note("system", `question from the agent: ${reply.action === "accept" ? answered : reply.action === "decline" ? "declined" : "not answered"}`, {
        elicitation: reply.action,
        ...(reply.action === "accept" ? { answers: said } : {}),
      });
      return reply;
    } finally {
      const left = (this.elicitations.get(session.id) ?? 1) - 1;
      if (left > 0) this.elicitations.set(session.id, left);
      else this.elicitations.delete(session.id);
    }
  }

  /** MCP-3: whether an elicitation of the session waits for the person. */
  waitingForPerson(sessionId: string): boolean {
    return this.elicitations.has(sessionId);
  }

  /** Sessions whose permission question waits for a person (the board's `needs_permission`). */
  askingSessionIds(): Set<string> {
    return new Set([...this.asks.values()].map((a) => a.sessionId));
  }

  pendingAsks(sessionId: string): PermissionAsk[] {
    return [...this.asks.values()].filter((a) => a.sessionId === sessionId).map((a) => a.ask);
  }

  answerPermission(sessionId: string, requestId: string, optionId: string | null): void {
    const a = this.asks.get(requestId);
    if (!a || a.sessionId !== sessionId) throw new AppError("not_found", `no pending permission request ${requestId}`, { requestId });
    if (optionId !== null && !a.ask.options.some((o) => o.optionId === optionId)) {
      throw new AppError("invalid_request", `option ${optionId} is not offered`, { field: "optionId" });
    }
    this.asks.delete(requestId);
    a.resolve(optionId === null ? "cancelled" : { optionId });
    this.onAskSettled?.(requestId);
  }

  onAgentExit(sessionId: string, info: { code: number | null; signal: string | null; duringTurn: boolean; pid: number; startTime: string }): void {
    this.deps.log.info({ sessionId, exitCode: info.code, signal: info.signal, duringTurn: info.duringTurn }, "agent exited");
    // SEC-7: only this process's record; by the time it is deleted the session may have a newer
    // agent (or a recorded group to stop), whose record must stay.
    void this.deps.store.deleteAgentProcess(sessionId, { pid: info.pid, startTime: info.startTime }).catch(() => undefined);
    this.cancelAsks(sessionId);
  }

  /** Compare-and-set a session's state, publish the change and re-derive the task state. */
  async transition(
    session: SessionRecord,
    from: readonly SessionState[],
    to: SessionState,
    lastError?: LastError | null,
    lastTurn?: LastTurn,
  ): Promise<SessionRecord | undefined> {
    const patch = { ...(lastError === undefined ? {} : { lastError }), ...(lastTurn ? { lastTurn } : {}) };
    const updated = await this.deps.store.casSessionState(session.id, from, to, patch, this.deps.now());
    if (!updated) return undefined;
    this.deps.bus.publish("session.state_changed", { session: sessionView(updated), from: session.state });
    await refreshTaskState(this.deps, updated.taskId);
    return updated;
  }

  /**
   * A launch whose agent did not come up (new session, prompt, resume, restart): an agent process
   * that did start is stopped here (SES-5.5: no process left behind), and the session fails with
   * the error, unless the server is stopping (SES-5.9). A launch the stop cut short is left as it
   * is for start-up recovery, which treats it like every session the stop interrupted (FLOWS
   * "Start-up": it waits for input), so the outcome does not depend on whether the stop's refusal
   * landed before or after the store closed.
   */
  async launchFailed(session: SessionRecord, from: readonly SessionState[], e: unknown): Promise<SessionRecord> {
    await this.deps.agents.stop(session.id).catch(() => undefined);
    if (this.shuttingDown) {
      this.deps.log.info({ sessionId: session.id, err: e }, "launch cut short by the server's stop: start-up recovery decides the session's state");
      return session;
    }
    return (await this.transition(session, from, "failed", errorOf(e, this.deps.now()))) ?? session;
  }

  /** CHG-3 (agent-driven part): a debounced `changes.updated` after tool calls and turns. */
  changesMayHaveChanged(taskId: string): void {
    const prev = this.changeTimers.get(taskId);
    if (prev) clearTimeout(prev);
    const t = setTimeout(() => {
      this.changeTimers.delete(taskId);
      void this.publishChanges(taskId);
    }, 300);
    t.unref();
    this.changeTimers.set(taskId, t);
  }

  private async publishChanges(taskId: string): Promise<void> {
    const env = await this.deps.store.getEnvironmentByTask(taskId).catch(() => undefined);
    if (!env) return;
    const rows = await this.deps.store.listEnvironmentRepos(env.id).catch(() => []);
    for (const r of rows.filter((x) => x.status === "active")) this.deps.bus.publish("changes.updated", { taskId, repositoryId: r.repositoryId });
  }

  dispose(): void {
    for (const t of this.changeTimers.values()) clearTimeout(t);
    this.changeTimers.clear();
  }
}

/** How much of an agent's stderr a lastError keeps (the agent process keeps 4 KB). */
const STDERR_SHOWN = 4096;

export function errorOf(e: unknown, at: string, repositoryId?: string): LastError {
  const appErr = e instanceof AppError ? e : undefined;
  const repo = repositoryId ?? (typeof appErr?.details?.repositoryId === "string" ? appErr.details.repositoryId : undefined);
  return {
    code: appErr?.code ?? "internal_error",
    message: e instanceof Error ? e.message : String(e),
    ...(repo ? { repositoryId: repo } : {}),
    ...(typeof appErr?.details?.action === "string" ? { action: appErr.details.action } : {}),
    // AG-3: what the agent itself said when it failed (shown by the page and `session show`).
    ...(typeof appErr?.details?.stderr === "string" && appErr.details.stderr.trim() !== "" ? { stderr: appErr.details.stderr.slice(-STDERR_SHOWN) } : {}),
    at,
  };
}
