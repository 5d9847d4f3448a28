/**
 * The board's filters. State, repository, text and archived are answered by the server
 * (`GET /tasks?view=summary`, api/resources.ts); the agent filter is applied in the page to
 * the summaries' `agent.state`, which the server computes (no session is read per card).
 */
import type { AgentActivity, TaskSummary, TurnOutcome } from "@grove/protocol";

export const AGENT_STATES: readonly AgentActivity[] = ["running", "needs_permission", "waiting", "failed", "none"];

export const AGENT_STATE_LABEL: Record<AgentActivity, string> = {
  running: "running",
  needs_permission: "needs permission",
  waiting: "waiting",
  failed: "failed",
  none: "no live agent",
};

/** LIVE-2: how a turn ended, in the person's words. */
export const OUTCOME_LABEL: Record<TurnOutcome, string> = {
  completed: "Turn finished",
  refused: "Turn refused",
  failed: "Turn failed",
  cancelled: "Turn cancelled",
  interrupted: "Turn interrupted",
  max_tokens: "Turn hit the token limit",
  stalled: "Turn stalled",
};

/** Whether a summary passes the agent filter (`state:<agent state>`, or empty for any). */
export function passesAgent(t: TaskSummary, agent: string): boolean {
  if (!agent) return true;
  return agent.startsWith("state:") ? t.agent.state === agent.slice(6) : true;
}
