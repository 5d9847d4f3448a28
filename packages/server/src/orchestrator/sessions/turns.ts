import type { AgentHandle } from "../../agents/runtime.js";
import { AppError } from "../../domain/errors.js";
import type { SessionRecord } from "../../domain/records.js";
import type { Deps } from "../context.js";
import { errorOf, type LiveSessions } from "./live-sessions.js";

/**
 * Runs one prompt turn in the background. The session must already be `running` (claimed by
 * compare-and-set). Turn end → `waiting_for_input`; an agent that dies mid-turn → `failed`
 * with a durable lastError (SES-8) — unless the server itself is shutting down, in which
 * case start-up recovery owns the state (SES-6).
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
      // Every turn that did not simply end is recorded with its stop reason, so a client can tell
      // a refused turn from a finished one (`grove session prompt --wait` exits 1 on refusal).
      if (stopReason !== "end_turn") recorder.note("system", stopReason === "cancelled" ? "turn cancelled" : `turn ended: ${stopReason}`, { stopReason });
      await recorder.flush();
      await live.transition(session, ["running"], "waiting_for_input");
    } catch (e) {
      recorder.closeOpenTools("interrupted");
      await recorder.flush();
      if (live.shuttingDown) return;
      const err = e instanceof AppError ? e : new AppError("agent_crashed", e instanceof Error ? e.message : String(e));
      await live.transition(session, ["running"], "failed", errorOf(err, deps.now()));
    } finally {
      live.cancelAsks(session.id);
      live.changesMayHaveChanged(session.taskId);
    }
  })().catch((err: unknown) => deps.log.error({ err, sessionId: session.id }, "turn bookkeeping failed"));
}
