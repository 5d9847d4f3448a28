import type { AgentHandle } from "../../agents/runtime.js";
import { AppError } from "../../domain/errors.js";
import type { SessionRecord } from "../../domain/records.js";
import { defaultReason, isFailedOutcome, lastTurnOf, outcomeOfStopReason } from "../../domain/turn-outcome.js";
import type { Deps } from "../context.js";
import { errorOf, type LiveSessions } from "./live-sessions.js";

/**
 * Runs one prompt turn in the background. The session must already be `running` (claimed by
 * compare-and-set). Turn end → `waiting_for_input` with the turn's outcome (LIVE-2): a refused
 * or otherwise failed turn also sets lastError with the agent's reason, so every client shows
 * it as failed, and its task is not moved to Review. An agent that dies mid-turn → `failed`
 * with a durable lastError (SES-8) — unless the server itself is shutting down, in which case
 * start-up recovery owns the state (SES-6).
 */
export function startTurn(deps: Deps, live: LiveSessions, session: SessionRecord, handle: AgentHandle, prompt: string): void {
  const recorder = live.recorderFor(session);
  recorder.note("user", prompt);
  const summary = live.takePendingSummary(session.id);
  // The summary of an unloadable conversation is its own content block, before the person's words.
  const blocks = summary ? [summary, prompt] : [prompt];
  void (async () => {
    try {
      const { stopReason } = await handle.prompt(blocks);
      recorder.closeMessage();
      // AG-1: whatever the stop reason, no tool call of this turn stays open.
      recorder.closeOpenTools("cancelled");
      await recorder.flush();
      const outcome = outcomeOfStopReason(stopReason);
      const failed = isFailedOutcome(outcome);
      const reason = failed ? recorder.agentTextOfTurn().trim() || defaultReason(outcome, stopReason) : undefined;
      // Every turn that did not simply end is also a transcript row with its stop reason.
      if (stopReason !== "end_turn") recorder.note("system", stopReason === "cancelled" ? "turn cancelled" : `turn ended: ${stopReason}${reason ? `: ${reason}` : ""}`, { stopReason, outcome });
      await recorder.flush();
      const at = deps.now();
      const lastError = failed ? { code: `turn_${outcome}`, message: `the turn ended with ${stopReason}: ${reason}`, at } : null;
      await live.transition(session, ["running"], "waiting_for_input", lastError, lastTurnOf(outcome, at, { reason, stopReason }));
    } catch (e) {
      recorder.closeOpenTools("interrupted");
      await recorder.flush();
      if (live.shuttingDown) return;
      const err = e instanceof AppError ? e : new AppError("agent_crashed", e instanceof Error ? e.message : String(e));
      const at = deps.now();
      await live.transition(session, ["running"], "failed", errorOf(err, at), lastTurnOf("failed", at, { reason: err.message }));
    } finally {
      live.cancelAsks(session.id);
      live.changesMayHaveChanged(session.taskId);
    }
  })().catch((err: unknown) => deps.log.error({ err, sessionId: session.id }, "turn bookkeeping failed"));
}
