import type { AgentActivity, DiffStat, TaskProgress, TaskSummary } from "@grove/protocol";

/** A pull request as the summary shows it. */
export type SummaryPullRequest = TaskSummary["pullRequests"][number];
import { slotSlug } from "./layout.js";
import type { SessionRecord, TaskRecord } from "./records.js";
import type { TaskRunner } from "./runner.js";
import { effectiveSessionState } from "./turn-outcome.js";

/** A session as the summary sees it. */
export type SummarySession = Pick<SessionRecord, "id" | "state" | "createdAt"> &
  Partial<Pick<SessionRecord, "lastTurn" | "lastError">> & { usage?: SessionUsageBrief };

/** USE-1: a session's usage as the board shows it. */
export interface SessionUsageBrief {
  cost: number;
  estimated: boolean;
  contextUsed?: number;
  contextWindow?: number;
}

/** USE-1: the task's cost over its sessions and the context of its newest session that reported one. */
function usageOf(sessions: readonly SummarySession[]): TaskSummary["usage"] {
  const withUsage = sessions.filter((s) => s.usage);
  if (withUsage.length === 0) return undefined;
  const cost = Math.round(withUsage.reduce((a, s) => a + s.usage!.cost, 0) * 1_000_000) / 1_000_000;
  const ctx = [...withUsage].reverse().find((s) => s.usage!.contextWindow)?.usage;
  return {
    cost,
    estimated: withUsage.some((s) => s.usage!.estimated),
    ...(ctx?.contextWindow ? { contextUsed: ctx.contextUsed ?? 0, contextWindow: ctx.contextWindow } : {}),
  };
}

/** An active environment slot as the summary sees it. */
export interface SummarySlot {
  repositoryId: string;
  branchSlug: string;
  worktreeBranch: string | null;
}

/**
 * The board's agent state of a task from its sessions (oldest first): a person's answer
 * outranks everything, then work in progress, then input awaited; `failed` only when the
 * newest session failed (or its last turn did, LIVE-2) and nothing is live. The newest deciding
 * session is named; a failed one with its turn's outcome and reason. A person's answer is
 * awaited by a live session's permission question (`asking`, held by the process running the
 * agent) or by an open agent question (`questioning`, MCP-3 `ask_user` or a form elicitation,
 * durable: it waits for the person whatever the session's state, and an answer reaches it).
 */
export function agentActivity(
  sessions: readonly SummarySession[],
  asking: ReadonlySet<string>,
  questioning: ReadonlySet<string> = new Set(),
): TaskSummary["agent"] {
  const newest = (pred: (s: SummarySession) => boolean) => [...sessions].reverse().find(pred);
  const pick = (state: AgentActivity, s: SummarySession | undefined) => (s ? { state, sessionId: s.id } : undefined);
  const last = sessions.at(-1);
  const permission = newest((s) => asking.has(s.id) && (s.state === "running" || s.state === "starting"));
  const question = newest((s) => questioning.has(s.id));
  // The newer of the two decides which question the card names.
  const waiting = [permission, question].filter((s): s is SummarySession => s !== undefined).sort((a, b) => sessions.indexOf(b) - sessions.indexOf(a))[0];
  if (waiting) return { state: "needs_permission", sessionId: waiting.id, asks: waiting === permission ? "permission" : "question" };
  return (
    pick(
      "running",
      newest((s) => s.state === "running" || s.state === "starting"),
    ) ??
    pick(
      "waiting",
      newest((s) => effectiveSessionState(s) === "waiting_for_input"),
    ) ??
    (last && effectiveSessionState(last) === "failed" ? failedActivity(last) : undefined) ?? { state: "none" }
  );
}

/** LIVE-2: a failed agent on the board, with how its last turn ended and why. */
function failedActivity(s: SummarySession): TaskSummary["agent"] {
  const reason = s.lastTurn?.reason ?? s.lastError?.message;
  return { state: "failed", sessionId: s.id, ...(s.lastTurn ? { outcome: s.lastTurn.outcome } : {}), ...(reason ? { reason } : {}) };
}

/**
 * A task's summary (TaskSummary of protocol): the task's own fields unchanged; per attachment
 * the repository's name and the worktree branch of its slot once materialized, else the
 * branch the task starts from.
 */
export function taskSummary(
  t: TaskRecord,
  parts: {
    repositoryNames: ReadonlyMap<string, string>;
    slots: readonly SummarySlot[];
    sessions: readonly SummarySession[];
    diffStat: DiffStat | undefined;
    asking: ReadonlySet<string>;
    /** MCP-3: sessions with an open agent question (from the database). */
    questioning?: ReadonlySet<string> | undefined;
    pullRequests?: readonly SummaryPullRequest[] | undefined;
    runner?: TaskRunner | undefined;
    progress?: TaskProgress | undefined;
    subtasks?: { total: number; done: number } | undefined;
  },
): TaskSummary {
  return {
    id: t.id,
    title: t.title,
    state: t.state,
    archivedAt: t.archivedAt,
    createdAt: t.createdAt,
    updatedAt: t.updatedAt,
    repositories: t.repositories.map((a) => {
      const slot = parts.slots.find((s) => s.repositoryId === a.repositoryId && s.branchSlug === slotSlug(a));
      return {
        repositoryId: a.repositoryId,
        name: parts.repositoryNames.get(a.repositoryId) ?? a.repositoryId,
        branch: slot?.worktreeBranch ?? a.checkoutBranch ?? a.baseBranch,
      };
    }),
    // An archived task's agents were stopped by its cleanup: its sessions keep their last state
    // (to be resumed after an unarchive), but nothing runs or waits on the board.
    agent: t.archivedAt ? { state: "none" } : agentActivity(parts.sessions, parts.asking, parts.questioning),
    diffStat: parts.diffStat ?? null,
    pullRequests: [...(parts.pullRequests ?? [])],
    runnerId: parts.runner?.runnerId ?? null,
    runnerState: parts.runner?.runnerState ?? null,
    ...(usageOf(parts.sessions) ? { usage: usageOf(parts.sessions)! } : {}),
    parentId: t.parentId ?? null,
    progress: parts.progress ?? null,
    subtasks: parts.subtasks ?? { total: 0, done: 0 },
  };
}
