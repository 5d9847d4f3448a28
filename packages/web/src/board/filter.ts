/**
 * The board's filters, applied in the page to the list `listTasks` returns (see
 * api/resources.ts). All filters combine (AND); text matches title, description, id and
 * repository names, case-insensitively, every word somewhere.
 */
import type { Session, Task } from "@grove/protocol";
import type { TaskFilter } from "../api/types.js";

export type AgentState = "running" | "needs_permission" | "waiting" | "failed" | "idle" | "none";

export const AGENT_STATE_LABEL: Record<AgentState, string> = {
  running: "running",
  needs_permission: "needs permission",
  waiting: "waiting",
  failed: "failed",
  idle: "idle",
  none: "no session",
};

/** The agent state a card shows, from the task's latest session (and its open questions). */
export function agentState(sessions: Session[] | undefined, pendingAsks = 0): AgentState | undefined {
  if (!sessions) return undefined;
  const latest = [...sessions].sort((a, b) => b.createdAt.localeCompare(a.createdAt))[0];
  if (!latest) return "none";
  if (sessions.some((s) => s.state === "running" || s.state === "starting")) return pendingAsks > 0 ? "needs_permission" : "running";
  if (latest.state === "waiting_for_input") return "waiting";
  if (latest.state === "failed") return "failed";
  return "idle";
}

export function matchesText(t: Task, q: string, repoName: (id: string) => string): boolean {
  const words = q.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return true;
  const hay = [t.title, t.description, t.id, ...t.repositories.map((r) => repoName(r.repositoryId)), ...t.repositories.map((r) => r.checkoutBranch ?? "")].join("\n").toLowerCase();
  return words.every((w) => hay.includes(w));
}

/**
 * Whether a task passes the filters. `sessionsOf` answers what the cache knows; with an agent
 * filter set, tasks whose sessions are not loaded yet are left out until they are.
 */
export function passes(t: Task, f: TaskFilter, repoName: (id: string) => string, activityOf: (taskId: string) => { sessions: Session[] | undefined; asks: number }): boolean {
  if (f.state && t.state !== f.state) return false;
  if (f.repositoryId && !t.repositories.some((r) => r.repositoryId === f.repositoryId)) return false;
  if (f.q && !matchesText(t, f.q, repoName)) return false;
  if (f.agent) {
    const { sessions, asks } = activityOf(t.id);
    if (!sessions) return false;
    // "state:<agent state>" or "agent:<agent name>"; both prefixes are six characters.
    const value = f.agent.slice(6);
    if (f.agent.startsWith("state:") && agentState(sessions, asks) !== value) return false;
    if (f.agent.startsWith("agent:") && !sessions.some((s) => s.agent === value)) return false;
  }
  return true;
}
