import type { AgentHandle } from "../../agents/runtime.js";
import { AppError } from "../../domain/errors.js";
import type { SessionRecord } from "../../domain/records.js";
import { defaultReason, isFailedOutcome, lastTurnOf, outcomeOfStopReason } from "../../domain/turn-outcome.js";
import type { Deps } from "../context.js";
import { DEFAULT_STALL_AFTER_MS } from "../../agents/profiles.js";
import { errorOf, type LiveSessions } from "./live-sessions.js";
import { watchForStall } from "./stall-watch.js";

/**
 * Runs one prompt turn in the background. The session must already be `running` (claimed by
 * compare-and-set). Turn end → `waiting_for_input` with the turn's outcome (LIVE-2): a refused
 * or otherwise failed turn also sets lastError with the agent's reason, so every client shows
 * it as failed, and its task is not moved to Review. An agent that dies mid-turn → `failed`
 * with a durable lastError (SES-8) — unless the server itself is shutting down, in which case
 * start-up recovery owns the state (SES-6).
 */
export function startTurn(
  deps: Pick<Deps, "agents" | "profiles" | "log" | "now">,
  live: LiveSessions,
  session: SessionRecord,
  handle: AgentHandle,
  prompt: string,
): void {
  const recorder = live.recorderFor(session);
  recorder.note("user", prompt);
  const summary = live.takePendingSummary(session.id);
  // The summary of an unloadable conversation is its own content block, before the person's words.
  const blocks = summary ? [summary, prompt] : [prompt];
  const stallAfterMs = deps.profiles.find((p) => p.name === session.agent)?.stallAfterMs ?? DEFAULT_STALL_AFTER_MS;
  const stopWatch = watchForStall(live, session, recorder, stallAfterMs, () => void markStalled(deps, live, session, stallAfterMs));
  void (async () => {
    let waited = false;
    try {
      const { stopReason, usage } = await handle.prompt(blocks);
      // USE-1/USE-2: the turn's tokens are recorded (and its budget checked) before the session
      // waits again, so the next prompt is measured against them.
      recorder.usage?.turnEnded(usage);
      await recorder.usage?.flush();
      recorder.closeMessage();
      // AG-1: whatever the stop reason, no tool call of this turn stays open.
      recorder.closeOpenTools("cancelled");
      await recorder.flush();
      const outcome = outcomeOfStopReason(stopReason);
      const failed = isFailedOutcome(outcome);
      const reason = failed ? recorder.agentTextOfTurn().trim() || defaultReason(outcome, stopReason) : undefined;
      // Every turn that did not simply end is also a transcript row with its stop reason.
      if (stopReason !== "end_turn")
        recorder.note("system", stopReason === "cancelled" ? "turn cancelled" : `turn ended: ${stopReason}${reason ? `: ${reason}` : ""}`, {
          stopReason,
          outcome,
        });
      await recorder.flush();
      const at = deps.now();
      const lastError = failed ? { code: `turn_${outcome}`, message: `the turn ended with ${stopReason}: ${reason}`, at } : null;
      const waiting = await live.transition(session, ["running"], "waiting_for_input", lastError, lastTurnOf(outcome, at, { reason, stopReason }));
      waited = waiting !== undefined;
    } catch (e) {
      recorder.closeOpenTools("interrupted");
      await recorder.flush();
      if (live.shuttingDown) return;
      const err = e instanceof AppError ? e : new AppError("agent_crashed", e instanceof Error ? e.message : String(e));
      // LIVE-3: an agent whose connection closed but whose process lives on is of no use: it is
      // stopped (its whole group), so no session is ever attached to a deaf agent.
      if (err.code === "agent_crashed" && deps.agents.get(session.id) === handle) await deps.agents.stop(session.id).catch(() => undefined);
      const at = deps.now();
      await live.transition(session, ["running"], "failed", errorOf(err, at), lastTurnOf("failed", at, { reason: err.message }));
    } finally {
      stopWatch();
      live.usage.turnEnded(session.id);
      live.cancelAsks(session.id);
      live.changesMayHaveChanged(session.taskId);
    }
    // WEB-37: a follow-up queued during the turn is the next turn, once this one's bookkeeping is done.
    if (waited) await live.onTurnWaiting?.(session.id);
  })().catch((err: unknown) => deps.log.error({ err, sessionId: session.id }, "turn bookkeeping failed"));
}

/**
 * LIVE-3: a turn without progress past its profile's limit. The session leaves `running` (it
 * is not shown working when nothing moves) for `failed` with `turn_stalled`; the agent process
 * is left as it is, so the person chooses: cancel (`session/cancel`) or restart (the agent is
 * stopped and a new one resumes the conversation with `session/load` in the same worktree). A
 * late answer of the stalled turn lands in the transcript only; the state stays until then.
 */
async function markStalled(deps: Pick<Deps, "log" | "now">, live: LiveSessions, session: SessionRecord, stallAfterMs: number): Promise<void> {
  const at = deps.now();
  const reason = `no update from the agent for ${formatMs(stallAfterMs)}`;
  const lastError = {
    code: "turn_stalled",
    message: `${reason}; cancel the turn or restart the agent`,
    action: `POST /api/v1/sessions/${session.id}/restart`,
    at,
  };
  const stalled = await live.transition(session, ["running"], "failed", lastError, lastTurnOf("stalled", at, { reason })).catch((err: unknown) => {
    deps.log.error({ err, sessionId: session.id }, "recording a stalled turn failed");
    return undefined;
  });
  if (!stalled) return;
  deps.log.warn({ sessionId: session.id, stallAfterMs }, "turn stalled");
  live.recorderFor(session).note("system", `turn stalled: ${reason}`, { outcome: "stalled" });
}

function formatMs(ms: number): string {
  return ms >= 60_000 ? `${Math.round(ms / 60_000)} min` : ms >= 1000 ? `${Math.round(ms / 1000)} s` : `${ms} ms`;
}
