/**
 * The board's filters. State, repository, text and archived are answered by the server
 * (`GET /tasks?view=summary`, api/resources.ts); the agent filter is applied in the page to
 * the summaries' `agent.state`, which the server computes (no session is read per card).
 */
import type { AgentActivity, TaskSummary } from "@grove/protocol";

/** Filters of the board; every field narrows (they combine with AND). */
export interface TaskFilter {
  archived: boolean;
  q: string;
  repositoryId: string;
  state: string;
  /** `state:<agent state>` of the summaries (`running`, `needs_permission`, `waiting`, `failed`, `none`), or empty. */
  agent: string;
}

export const AGENT_STATES: readonly AgentActivity[] = ["running", "needs_permission", "waiting", "failed", "none"];

/** Whether a summary passes the agent filter (`state:<agent state>`, or empty for any). */
export function passesAgent(t: TaskSummary, agent: string): boolean {
  if (!agent) return true;
  return agent.startsWith("state:") ? t.agent.state === agent.slice(6) : true;
}
