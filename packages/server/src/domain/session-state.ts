import type { SessionState, TaskState } from "./records.js";

export const TERMINAL_SESSION_STATES: readonly SessionState[] = ["completed", "failed", "cancelled"];

/** States from which a routine transition to `to` is allowed (SES-1). */
const ROUTINE: Record<SessionState, readonly SessionState[]> = {
  created: [],
  starting: ["created", "waiting_for_input"],
  running: ["starting", "waiting_for_input"],
  waiting_for_input: ["starting", "running"],
  completed: ["running", "waiting_for_input"],
  failed: ["created", "starting", "running", "waiting_for_input"],
  cancelled: ["created", "starting", "running", "waiting_for_input"],
};

/** Which states a routine transition into `to` may start from; never a terminal state. */
export function allowedFrom(to: SessionState): readonly SessionState[] {
  return ROUTINE[to];
}

/** States an explicit resume may leave (SES-1: only resume leaves failed/cancelled). */
export const RESUMABLE_STATES: readonly SessionState[] = ["waiting_for_input", "failed", "cancelled", "completed"];

export function isTerminal(s: SessionState): boolean {
  return TERMINAL_SESSION_STATES.includes(s);
}

/**
 * A task's derived state: `in_progress` while any session works, `review` when sessions exist
 * and none works, `failed` when every session failed or was cancelled. A person's explicit
 * `done` is kept; a task with no session keeps its state.
 */
export function deriveTaskState(current: TaskState, sessions: readonly SessionState[]): TaskState {
  if (current === "done") return current;
  if (sessions.some((s) => s === "starting" || s === "running")) return "in_progress";
  if (sessions.some((s) => s === "waiting_for_input" || s === "completed")) return "review";
  if (sessions.length > 0 && sessions.every((s) => s === "failed" || s === "cancelled")) return "failed";
  return current;
}
