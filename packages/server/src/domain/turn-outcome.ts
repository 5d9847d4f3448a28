import type { LastTurn, TurnOutcome } from "@grove/protocol";
import type { SessionState } from "./records.js";

/**
 * LIVE-2: outcomes that mean the turn did not do what was asked. `interrupted` (a server stop
 * mid-turn) is not among them: start-up recovery leaves such a session waiting to go on (SES-6).
 */
const FAILED_OUTCOMES: ReadonlySet<TurnOutcome> = new Set(["refused", "failed", "max_tokens", "stalled"]);

export function isFailedOutcome(outcome: TurnOutcome | undefined): boolean {
  return outcome !== undefined && FAILED_OUTCOMES.has(outcome);
}

/** LIVE-2: an ACP `stopReason` as a turn outcome (unknown reasons are failures, never successes). */
export function outcomeOfStopReason(stopReason: string): TurnOutcome {
  switch (stopReason) {
    case "end_turn":
      return "completed";
    case "refusal":
      return "refused";
    case "cancelled":
      return "cancelled";
    case "max_tokens":
      return "max_tokens";
    default:
      return "failed";
  }
}

/** The longest reason a lastTurn keeps (the transcript has the whole text). */
const REASON_CHARS = 2000;

export function lastTurnOf(outcome: TurnOutcome, at: string, extra: { reason?: string | undefined; stopReason?: string | undefined } = {}): LastTurn {
  const reason = extra.reason?.trim();
  return {
    outcome,
    ...(reason ? { reason: reason.length > REASON_CHARS ? `…${reason.slice(-REASON_CHARS)}` : reason } : {}),
    ...(extra.stopReason ? { stopReason: extra.stopReason } : {}),
    at,
  };
}

/** The reason shown for a failed turn when the agent said nothing itself. */
export function defaultReason(outcome: TurnOutcome, stopReason?: string): string {
  switch (outcome) {
    case "refused":
      return "the agent refused the request";
    case "max_tokens":
      return "the agent reached its token limit";
    case "stalled":
      return "no progress from the agent";
    case "interrupted":
      return "the server stopped during the turn";
    default:
      return stopReason ? `the turn ended with ${stopReason}` : "the turn failed";
  }
}

/**
 * LIVE-2: a session as the board and the task state see it. A session waiting after a failed
 * turn counts as failed (its task is not moved to Review); its agent is still there to be prompted.
 */
export function effectiveSessionState(s: { state: SessionState; lastTurn?: LastTurn | null | undefined }): SessionState {
  return s.state === "waiting_for_input" && isFailedOutcome(s.lastTurn?.outcome) ? "failed" : s.state;
}
