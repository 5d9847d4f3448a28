/**
 * WEB-20: every state the page shows, in the person's words: one map per kind of state, and
 * the only place that turns a raw state into text. The raw value stays in `data-state`
 * attributes (tests, styles); a state this page does not know yet (a newer server's) falls back
 * to its value with spaces, so it still shows and is never hidden.
 */
import type { AgentActivity, Session, Task, ToolStatus, TurnOutcome } from "@grove/protocol";

/** Task states (board columns, card badges, the task page's state). */
export const TASK_STATE_WORDS: Record<Task["state"], string> = {
  todo: "To do",
  in_progress: "In progress",
  review: "Review",
  done: "Done",
  failed: "Failed",
};

/** Session states (session list, session panel). */
export const SESSION_STATE_WORDS: Record<Session["state"], string> = {
  created: "Not started",
  starting: "Starting",
  running: "Working",
  waiting_for_input: "Waiting for you",
  completed: "Finished",
  failed: "Failed",
  cancelled: "Cancelled",
};

/** The board's agent activity of a task (card badge, agent filter). */
export const AGENT_ACTIVITY_WORDS: Record<AgentActivity, string> = {
  running: "Agent working",
  needs_permission: "Needs you",
  waiting: "Waiting for you",
  failed: "Agent failed",
  none: "No live agent",
};

/** How a turn ended (LIVE-2: card and session panel, unless it simply finished). */
export const TURN_OUTCOME_WORDS: Record<TurnOutcome, string> = {
  completed: "Turn finished",
  refused: "Turn refused",
  failed: "Turn failed",
  cancelled: "Turn cancelled",
  interrupted: "Turn interrupted",
  max_tokens: "Turn hit the token limit",
  stalled: "Turn stalled",
};

/** Environment states and worktree row states (the task page's Environment). */
export const ENVIRONMENT_WORDS: Record<string, string> = {
  creating: "Being created",
  ready: "Ready",
  failed: "Failed",
  active: "On disk",
  deleted: "Removed",
  archived: "Archived",
};

/** Cleanup job states (the task page's lifecycle table). */
export const JOB_STATE_WORDS: Record<string, string> = {
  prepared: "Prepared",
  pending: "Waiting to run",
  running: "Running",
  retry_wait: "Retrying soon",
  succeeded: "Done",
  failed: "Failed",
  cancelled: "Cancelled",
};

/** Plan entry statuses (the agent's plan on the session panel). */
export const PLAN_STATUS_WORDS: Record<string, string> = {
  pending: "To do",
  in_progress: "In progress",
  completed: "Done",
};

/** WEB-49.7: a changed file's status (the review's badges: a letter in the file tree, the word on the diff). */
export const FILE_STATUS_WORDS: Record<string, string> = {
  added: "Added",
  modified: "Modified",
  deleted: "Deleted",
  renamed: "Renamed",
  untracked: "Untracked",
  conflicted: "Conflicted",
  typechange: "Type changed",
};

/** WEB-49.8: an agent's tool call's status on the conversation (every `ToolStatus`). */
export const TOOL_STATUS_WORDS: Record<ToolStatus, string> = {
  pending: "Pending",
  in_progress: "Running",
  completed: "Done",
  failed: "Failed",
  cancelled: "Cancelled",
  interrupted: "Interrupted",
};

const fallback = (state: string) => state.replace(/_/g, " ");

export const taskStateWords = (s: string): string => (TASK_STATE_WORDS as Record<string, string>)[s] ?? fallback(s);
/**
 * A card's agent badge. An agent left waiting on a Done task is not waiting for the person: the
 * work is finished, its agent merely idle (it still takes a prompt). What needs the person says
 * what it is: a permission request or an agent's question (MCP-3, the summary's `agent.asks`).
 */
export const agentActivityWords = (s: string, taskState?: string, asks?: string): string =>
  s === "waiting" && taskState === "done"
    ? IDLE
    : s === "needs_permission" && asks
      ? (NEEDS_YOU_WORDS[asks] ?? AGENT_ACTIVITY_WORDS.needs_permission)
      : ((AGENT_ACTIVITY_WORDS as Record<string, string>)[s] ?? fallback(s));
const NEEDS_YOU_WORDS: Record<string, string> = { permission: "Needs your permission", question: "Needs your answer" };
const IDLE = "Agent idle";
const WAITING_FOR_ANSWER = "Waiting for your answer";
export const toolStatusWords = (s: string): string => (TOOL_STATUS_WORDS as Record<string, string>)[s] ?? fallback(s);
export const fileStatusWords = (s: string): string => FILE_STATUS_WORDS[s] ?? fallback(s);
export const environmentWords = (s: string): string => ENVIRONMENT_WORDS[s] ?? fallback(s);
export const outcomeWords = (s: string): string => (TURN_OUTCOME_WORDS as Record<string, string>)[s] ?? fallback(s);
export const planStatusWords = (s: string): string => PLAN_STATUS_WORDS[s] ?? fallback(s);
/** MCP-2: "n of m done" of a reported plan. */
export const planDoneWords = (plan: readonly { status: string }[]): string => `${plan.filter((p) => p.status === "completed").length} of ${plan.length} done`;
/** MCP-3: "2 subtasks · 1 done". */
export const subtaskCountWords = (s: { total: number; done: number }): string => `${s.total} ${s.total === 1 ? "subtask" : "subtasks"} · ${s.done} done`;
export const jobStateWords = (s: string): string => JOB_STATE_WORDS[s] ?? fallback(s);

/**
 * What a session's badge says. A session of an archived task lost its agent to the archive's
 * cleanup, whatever state it was left in: it is not waiting for anyone, it is stopped. One
 * waiting on a Done task is idle (see agentActivityWords).
 */
export function sessionStateWords(state: string, opts: { archived?: boolean; done?: boolean; asking?: boolean } = {}): string {
  if (opts.archived && (state === "waiting_for_input" || state === "running" || state === "starting")) return "Agent stopped";
  // WEB-41: a turn held by the agent's question to the person is not work: it waits for them.
  if (opts.asking && (state === "running" || state === "starting")) return WAITING_FOR_ANSWER;
  if (opts.done && state === "waiting_for_input") return IDLE;
  return (SESSION_STATE_WORDS as Record<string, string>)[state] ?? fallback(state);
}

/**
 * The `data-state` a session's badge carries: the raw state, `stopped` when its agent was stopped,
 * or `waiting_for_answer` while the agent's question waits for the person (see above).
 */
export function sessionShownState(state: string, opts: { archived?: boolean; asking?: boolean } = {}): string {
  const words = sessionStateWords(state, opts);
  return words === "Agent stopped" ? "stopped" : words === WAITING_FOR_ANSWER ? "waiting_for_answer" : state;
}
