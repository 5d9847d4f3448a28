/**
 * The person's words for states in the CLI's human output (`task ls|show`, `session ls|show`, the
 * progress of `--wait` and `--follow`), the same
 * words the page shows (web `ui/words.ts`, WEB-20). `--json` keeps the raw values: scripts read
 * those. A state this CLI does not know (a newer server's) prints as its value with spaces.
 */

const TASK_STATES: Record<string, string> = {
  todo: "To do",
  in_progress: "In progress",
  review: "Review",
  done: "Done",
  failed: "Failed",
};

const SESSION_STATES: Record<string, string> = {
  created: "Not started",
  starting: "Starting",
  running: "Working",
  waiting_for_input: "Waiting for you",
  completed: "Finished",
  failed: "Failed",
  cancelled: "Cancelled",
};

const TURN_OUTCOMES: Record<string, string> = {
  refused: "Turn refused",
  failed: "Turn failed",
  cancelled: "Turn cancelled",
  interrupted: "Turn interrupted",
  max_tokens: "Turn hit the token limit",
  stalled: "Turn stalled",
};

/** LIVE-2: how a session's latest turn ended, in a `LAST TURN` column or a `last turn:` line. */
const LAST_TURNS: Record<string, string> = {
  completed: "Completed",
  refused: "Refused",
  failed: "Failed",
  cancelled: "Cancelled",
  interrupted: "Interrupted",
  max_tokens: "Hit the token limit",
  stalled: "Stalled",
};

/** LIVE-4.9: an inbox item's kind, as the page's inbox labels it. */
const INBOX_KINDS: Record<string, string> = {
  permission: "Permission requested",
  question: "Question",
  turn_finished: "Turn finished",
  turn_failed: "Turn failed",
  stalled: "Turn stalled",
  agent_crashed: "Agent crashed",
  checks_failed: "PR checks failed",
  conflict: "Conflict",
  budget: "Budget reached",
};

const spaced = (s: string) => s.replace(/_/g, " ");

/** An inbox item's kind in words ("Turn finished"). */
export const inboxKindWords = (k: string): string => INBOX_KINDS[k] ?? spaced(k);

/** A task's state in words ("In progress"). */
export const taskStateWords = (s: string): string => TASK_STATES[s] ?? spaced(s);

/** A session's state in words ("Waiting for you"). */
export const sessionStateWords = (s: string): string => SESSION_STATES[s] ?? spaced(s);

/** How a turn ended, in words ("Hit the token limit"). */
export const turnOutcomeWords = (o: string): string => LAST_TURNS[o] ?? spaced(o);

/**
 * A session's last error, said once: a failed turn as its outcome and the agent's reason on one
 * line ("Turn refused: …"), anything else as the server's message; the code stays in `--json`.
 */
export function lastErrorWords(e: { code: string; message: string } | null, reason?: string): string {
  if (!e) return "";
  const turn = e.code.startsWith("turn_") ? TURN_OUTCOMES[e.code.slice("turn_".length)] : undefined;
  const text = turn ? `${turn}: ${e.code === "turn_stalled" ? e.message : (reason ?? e.message)}` : `${spaced(e.code)}: ${e.message}`;
  return text.replace(/\s*[\r\n]+\s*/g, " ").trim();
}
