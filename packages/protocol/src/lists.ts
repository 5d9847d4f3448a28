import { z } from "zod";
import { ChecksState, PullRequestState } from "./review.js";
import { RunnerState } from "./runners.js";
import { TaskProgress, TaskState, TurnOutcome } from "./schemas.js";

/**
 * Paged lists: with `?limit=N` a list answers `{items, nextCursor}`; without it the
 * plain array stays as it is (docs/specs/lists.md). `nextCursor` is opaque; pass it back as `cursor`
 * (messages: `before`) for the next page; `null` means this was the last page.
 */
export function pageOf<T extends z.ZodType>(item: T) {
  return z.object({ items: z.array(item), nextCursor: z.string().nullable() });
}

/** One page of a list. */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/** The largest `limit` a list accepts. */
export const MAX_PAGE_LIMIT = 500;

/**
 * What the board shows of a task's agents: `running` while a session starts or works,
 * `needs_permission` while a session waits for a person's answer (a permission request or an
 * agent's question, named by `agent.asks`), `waiting` when a session
 * waits for input, `failed` when the newest session failed and none is live, else `none`.
 * `sessionId` names the session that decided it.
 */
export const AgentActivity = z.enum(["running", "waiting", "needs_permission", "failed", "none"]);
export type AgentActivity = z.infer<typeof AgentActivity>;

/** Totals of a task's Changes (all slots), from the last time they were computed. */
export const DiffStat = z.object({ files: z.number().int(), additions: z.number().int(), deletions: z.number().int() });
export type DiffStat = z.infer<typeof DiffStat>;

/**
 * The board's compact task (`GET /tasks?view=summary`, and `task.summary` event frames).
 * The common fields equal the full `Task`'s; `repositories` follow the task's attachment
 * order, `branch` is the worktree branch once materialized, else the branch the task starts from.
 * `diffStat` is null until the task's Changes have been computed once; `pullRequests` as last polled.
 * `runnerId`/`runnerState` as in the full `Task`: null before an environment exists.
 */
export const TaskSummary = z.object({
  id: z.string(),
  title: z.string(),
  state: TaskState,
  archivedAt: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  repositories: z.array(z.object({ repositoryId: z.string(), name: z.string(), branch: z.string() })),
  /** LIVE-2: a `failed` agent names how its turn ended (`outcome`) and why (`reason`). */
  agent: z.object({
    state: AgentActivity,
    sessionId: z.string().optional(),
    outcome: TurnOutcome.optional(),
    reason: z.string().optional(),
    /** With `needs_permission`: what waits for the person's answer, a permission request or an agent's question (MCP-3). */
    asks: z.enum(["permission", "question"]).optional(),
  }),
  diffStat: DiffStat.nullable(),
  /** The task's pull requests (one per repository at most), as the provider last reported them. */
  pullRequests: z.array(z.object({ repositoryId: z.string(), number: z.number().int(), url: z.string(), state: PullRequestState, checks: ChecksState })),
  /** The runner holding the task's environment; null before one exists. */
  runnerId: z.string().nullable(),
  /** That runner's state when the summary was read (`runner.updated` frames follow changes); null before an environment exists. */
  runnerState: RunnerState.nullable(),
  /** USE-1: the task's cost over its sessions and its newest session's context (the card's ring); absent before any usage. */
  usage: z.object({ cost: z.number(), estimated: z.boolean(), contextUsed: z.number().optional(), contextWindow: z.number().optional() }).optional(),
  /** MCP-3: the parent of a subtask; null for a person's task. */
  parentId: z.string().nullable().optional(),
  /** MCP-2: the latest `report_progress` of an agent of the task (the card's progress line); null before one. */
  progress: TaskProgress.nullable().optional(),
  /** MCP-3: the task's subtasks (not in the trash; archived ones count): how many, and how many are done. */
  subtasks: z.object({ total: z.number().int().nonnegative(), done: z.number().int().nonnegative() }).optional(),
});
export type TaskSummary = z.infer<typeof TaskSummary>;

const limit = z.coerce.number().int().min(1).max(MAX_PAGE_LIMIT);
const cursor = z.string().min(1).max(1000);

/**
 * `GET /tasks` query: filters combine (AND); `state` may list several states, comma-separated.
 * Unknown parameters are ignored (e.g. `token`, which the auth hook reads), as before paging.
 */
export const ListTasksQuery = z
  .object({
    archived: z.enum(["true", "false"]).optional(),
    state: z
      .string()
      .max(200)
      .transform((s) => s.split(","))
      .pipe(z.array(TaskState).min(1))
      .optional(),
    repositoryId: z.string().min(1).max(100).optional(),
    /** MCP-3: only the subtasks of this task. */
    parentId: z.string().min(1).max(100).optional(),
    q: z.string().min(1).max(200).optional(),
    view: z.enum(["full", "summary"]).optional(),
    /** `oldest` (default) or `newest` first, by `(createdAt, id)`; a cursor continues in its list's order. */
    order: z.enum(["oldest", "newest"]).optional(),
    limit: limit.optional(),
    cursor: cursor.optional(),
  })
  .refine((q) => q.cursor === undefined || q.limit !== undefined, { message: "a cursor needs a limit", path: ["cursor"] });
export type ListTasksQuery = z.infer<typeof ListTasksQuery>;

/**
 * WEB-30 `GET /tasks/counts`: how many tasks each state holds under the board's server-side
 * filters (the same `archived`, `repositoryId`, `q` as `GET /tasks`), so a column's count is
 * exact however few of its cards are loaded.
 */
export const TaskCountsQuery = z.object({
  archived: z.enum(["true", "false"]).optional(),
  repositoryId: z.string().min(1).max(100).optional(),
  q: z.string().min(1).max(200).optional(),
});
export type TaskCountsQuery = z.infer<typeof TaskCountsQuery>;

const count = z.number().int().nonnegative();
export const TaskCounts = z.object({
  counts: z.object({ todo: count, in_progress: count, review: count, done: count, failed: count }),
  total: count,
});
export type TaskCounts = z.infer<typeof TaskCounts>;

/** `GET /tasks/:id/sessions` and `GET /cleanup-jobs` paging. */
export const PageQuery = z
  .object({ limit: limit.optional(), cursor: cursor.optional() })
  .refine((q) => q.cursor === undefined || q.limit !== undefined, { message: "a cursor needs a limit", path: ["cursor"] });

/** `GET /sessions/:id/messages`: pages from the newest; `before` (or `cursor`) continues to older ones. */
export const MessagesQuery = z
  .object({ limit: limit.optional(), before: cursor.optional(), cursor: cursor.optional() })
  .refine((q) => (q.before === undefined && q.cursor === undefined) || q.limit !== undefined, { message: "a cursor needs a limit", path: ["before"] });
