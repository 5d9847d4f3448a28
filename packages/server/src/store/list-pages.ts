import { sql, type Expression, type ExpressionBuilder, type SqlBool } from "kysely";
import type { LastError, LastTurn } from "@grove/protocol";
import type { CleanupJobRecord } from "../domain/cleanup-job.js";
import type { KeyCursor } from "../domain/cursor.js";
import type { MessageRecord, SessionRecord, TaskRecord, TaskRepositoryRecord, TaskState } from "../domain/records.js";
import { toJob } from "./cleanup-jobs-repo.js";
import { toMessage } from "./messages-repo.js";
import type { Ctx, DB, Db } from "./schema.js";
import { toSession } from "./sessions-repo.js";
import type { SessionUsageBrief } from "../domain/task-summary.js";
import { toAttachment, toRecord } from "./tasks-repo.js";

/** Filters of `GET /tasks`; they combine (AND). */
export interface TaskFilter {
  archived: boolean;
  states?: readonly TaskState[] | undefined;
  repositoryId?: string | undefined;
  /** MCP-3: only the subtasks of this task. */
  parentId?: string | undefined;
  /** Case-insensitive text in the title or the description. */
  q?: string | undefined;
}

/** A keyset page: rows strictly after `after` in the list's order; `limit` undefined = all. */
export interface PageSpec<C> {
  after?: C | undefined;
  limit?: number | undefined;
  /** Newest first (descending key); `after` then means "older than". Only `GET /tasks` offers it. */
  newest?: boolean | undefined;
}

/** Rows of one page, and whether more follow (the query fetched one row past `limit`). */
export interface RowsPage<T> {
  rows: T[];
  more: boolean;
}

function cut<T>(rows: T[], limit: number | undefined): RowsPage<T> {
  if (limit === undefined || rows.length <= limit) return { rows, more: false };
  return { rows: rows.slice(0, limit), more: true };
}

/** `(created_at, id) > (at, id)`: the keyset condition every (created_at, id)-ordered list uses. */
function afterKey<T extends "tasks" | "sessions" | "cleanup_jobs">(eb: ExpressionBuilder<DB, T>, c: KeyCursor, newest = false): Expression<SqlBool> {
  const e = eb as unknown as ExpressionBuilder<DB, "tasks">;
  return e(e.refTuple("created_at", "id"), newest ? "<" : ">", e.tuple(c.at, c.id)) as Expression<SqlBool>;
}

/** LIKE pattern with the wildcards of the user's text escaped (backslash is the escape). */
function likeContains(text: string): string {
  return `%${text.replace(/[\\%_]/g, (m) => `\\${m}`)}%`;
}

/**
 * The `q` filter. PostgreSQL: ILIKE on the expression the trigram index covers. SQLite: the
 * FTS5 trigram table for three characters or more (a trigram index cannot answer shorter
 * text), else a scan with instr.
 */
function textMatch(ctx: Ctx, q: string) {
  return (eb: ExpressionBuilder<DB, "tasks">): Expression<SqlBool> => {
    if (ctx.dialect === "postgres") return sql<SqlBool>`(tasks.title || ' ' || tasks.description) ILIKE ${likeContains(q)}`;
    if ([...q].length >= 3) return sql<SqlBool>`tasks.rowid IN (SELECT rowid FROM tasks_text_fts WHERE tasks_text_fts MATCH ${`"${q.replace(/"/g, '""')}"`})`;
    return eb.or([sql<SqlBool>`instr(lower(tasks.title), lower(${q})) > 0`, sql<SqlBool>`instr(lower(tasks.description), lower(${q})) > 0`]);
  };
}

/** The tasks a filter selects (no columns, no order): shared by the page read and the counts. */
function filteredTasks(ctx: Ctx, f: TaskFilter) {
  let q = ctx.db
    .selectFrom("tasks")
    .where("tasks.archived_at", f.archived ? "is not" : "is", null)
    .where("tasks.deleted_at", "is", null);
  if (f.states && f.states.length > 0) q = q.where("tasks.state", "in", f.states);
  if (f.parentId !== undefined) q = q.where("tasks.parent_id", "=", f.parentId);
  const repositoryId = f.repositoryId;
  if (repositoryId !== undefined) {
    q = q.where((eb) =>
      eb.exists(
        eb
          .selectFrom("task_repositories")
          .select("task_repositories.task_id")
          .whereRef("task_repositories.task_id", "=", "tasks.id")
          .where("task_repositories.repository_id", "=", repositoryId),
      ),
    );
  }
  if (f.q !== undefined) q = q.where(textMatch(ctx, f.q));
  return q;
}

/** The exact query `GET /tasks` runs for one page (exported so a test can EXPLAIN it). */
export function taskPageQuery(ctx: Ctx, f: TaskFilter, page: PageSpec<KeyCursor>) {
  let q = filteredTasks(ctx, f).selectAll("tasks");
  const after = page.after;
  const dir = page.newest ? "desc" : "asc";
  if (after) q = q.where((eb) => afterKey(eb, after, page.newest));
  q = q.orderBy("tasks.created_at", dir).orderBy("tasks.id", dir);
  return page.limit === undefined ? q : q.limit(page.limit + 1);
}

/** WEB-30: how many tasks of each state the filter selects (one grouped count; states without tasks are absent). */
export async function countTasksByState(ctx: Ctx, f: TaskFilter): Promise<Map<TaskState, number>> {
  const rows = await filteredTasks(ctx, f)
    .select(["tasks.state", (eb) => eb.fn.countAll<number | string | bigint>().as("n")])
    .groupBy("tasks.state")
    .execute();
  return new Map(rows.map((r) => [r.state as TaskState, Number(r.n)]));
}

/** Ids in chunks small enough for any driver's parameter limit. */
function chunks<T>(xs: readonly T[], size = 500): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < xs.length; i += size) out.push(xs.slice(i, i + size));
  return out;
}

async function attachmentsOf(db: Db, taskIds: readonly string[]): Promise<Map<string, TaskRepositoryRecord[]>> {
  const byTask = new Map<string, TaskRepositoryRecord[]>();
  for (const ids of chunks(taskIds)) {
    const rows = await db.selectFrom("task_repositories").selectAll().where("task_id", "in", ids).orderBy("task_id").orderBy("position").execute();
    for (const r of rows) {
      const list = byTask.get(r.task_id) ?? [];
      list.push(toAttachment(r));
      byTask.set(r.task_id, list);
    }
  }
  return byTask;
}

/** One page of full tasks (with their attachments), in (createdAt, id) order (or its reverse). */
export async function listTaskPage(ctx: Ctx, f: TaskFilter, page: PageSpec<KeyCursor>): Promise<RowsPage<TaskRecord>> {
  const { rows, more } = cut(await taskPageQuery(ctx, f, page).execute(), page.limit);
  const atts = await attachmentsOf(
    ctx.db,
    rows.map((t) => t.id),
  );
  return { rows: rows.map((t) => toRecord(t, atts.get(t.id) ?? [])), more };
}

/** What a task summary needs beyond the task row, for many tasks at once (a few indexed queries). */
export interface SummaryParts {
  repositoryNames: Map<string, string>;
  /** Active environment rows per task: repository, slot slug and worktree branch. */
  slots: Map<string, { repositoryId: string; branchSlug: string; worktreeBranch: string | null }[]>;
  sessions: Map<string, (Pick<SessionRecord, "id" | "state" | "createdAt" | "lastTurn" | "lastError"> & { usage?: SessionUsageBrief })[]>;
  diffStats: Map<string, { files: number; additions: number; deletions: number }>;
  pullRequests: Map<string, { repositoryId: string; number: number; url: string; state: string; checks: string }[]>;
  /** MCP-2: each task's latest progress report. */
  progress: Map<string, { status: string; plan: { content: string; status: "pending" | "in_progress" | "completed" }[] | null; updatedAt: string }>;
  /** MCP-3: each task's subtasks not in the trash (archived ones count): how many, how many done. */
  subtasks: Map<string, { total: number; done: number }>;
  /** MCP-3: the sessions (of these tasks) with an open agent question: they wait for the person. */
  questioning: Set<string>;
}

export async function summaryParts(db: Db, taskIds: readonly string[]): Promise<SummaryParts> {
  const parts: SummaryParts = {
    repositoryNames: new Map(),
    slots: new Map(),
    sessions: new Map(),
    diffStats: new Map(),
    pullRequests: new Map(),
    progress: new Map(),
    subtasks: new Map(),
    questioning: new Set(),
  };
  for (const r of await db.selectFrom("repositories").select(["id", "name"]).execute()) parts.repositoryNames.set(r.id, r.name);
  for (const ids of chunks(taskIds)) {
    const slots = await db
      .selectFrom("task_environment_repos as r")
      .innerJoin("task_environments as e", "e.id", "r.environment_id")
      .select(["e.task_id", "r.repository_id", "r.branch_slug", "r.worktree_branch"])
      .where("e.task_id", "in", ids)
      .where("r.status", "=", "active")
      .orderBy("r.position")
      .execute();
    for (const s of slots) {
      const list = parts.slots.get(s.task_id) ?? [];
      list.push({ repositoryId: s.repository_id, branchSlug: s.branch_slug, worktreeBranch: s.worktree_branch });
      parts.slots.set(s.task_id, list);
    }
    const sessions = await db
      .selectFrom("sessions")
      .select([
        "id",
        "task_id",
        "state",
        "created_at",
        "last_turn",
        "last_error",
        "usage_cost",
        "usage_estimated",
        "usage_context_used",
        "usage_context_window",
      ])
      .where("task_id", "in", ids)
      .orderBy("created_at")
      .orderBy("id")
      .execute();
    for (const s of sessions) {
      const list = parts.sessions.get(s.task_id) ?? [];
      list.push({
        id: s.id,
        state: s.state as SessionRecord["state"],
        createdAt: s.created_at,
        lastTurn: s.last_turn ? (JSON.parse(s.last_turn) as LastTurn) : null,
        lastError: s.last_error ? (JSON.parse(s.last_error) as LastError) : null,
        // USE-1: what the board's card shows (cost and the context ring).
        ...(s.usage_cost || s.usage_context_used !== null
          ? {
              usage: {
                cost: Number(s.usage_cost),
                estimated: Number(s.usage_estimated) === 1,
                ...(s.usage_context_used !== null ? { contextUsed: Number(s.usage_context_used), contextWindow: Number(s.usage_context_window ?? 0) } : {}),
              },
            }
          : {}),
      });
      parts.sessions.set(s.task_id, list);
    }
    for (const d of await db.selectFrom("task_diff_stats").selectAll().where("task_id", "in", ids).execute()) {
      parts.diffStats.set(d.task_id, { files: Number(d.files), additions: Number(d.additions), deletions: Number(d.deletions) });
    }
    const prs = await db
      .selectFrom("pull_requests")
      .select(["task_id", "repository_id", "number", "url", "state", "checks"])
      .where("task_id", "in", ids)
      .orderBy("task_id")
      .orderBy("repository_id")
      .execute();
    for (const p of prs) {
      const list = parts.pullRequests.get(p.task_id) ?? [];
      list.push({ repositoryId: p.repository_id, number: Number(p.number), url: p.url, state: p.state, checks: p.checks });
      parts.pullRequests.set(p.task_id, list);
    }
    for (const p of await db.selectFrom("task_progress").select(["task_id", "status", "plan", "updated_at"]).where("task_id", "in", ids).execute()) {
      parts.progress.set(p.task_id, {
        status: p.status,
        plan: p.plan ? (JSON.parse(p.plan) as { content: string; status: "pending" | "in_progress" | "completed" }[]) : null,
        updatedAt: p.updated_at,
      });
    }
    const open = await db.selectFrom("questions").select("session_id").where("task_id", "in", ids).where("state", "=", "open").execute();
    for (const q of open) parts.questioning.add(q.session_id);
    // One grouped count over the parent index: the card's "n subtasks · m done" without a read per card.
    const kids = await db
      .selectFrom("tasks")
      .select(["parent_id", "state", (eb) => eb.fn.countAll<number | string>().as("n")])
      .where("parent_id", "in", ids)
      .where("deleted_at", "is", null)
      .groupBy(["parent_id", "state"])
      .execute();
    for (const k of kids) {
      if (k.parent_id === null) continue;
      const cur = parts.subtasks.get(k.parent_id) ?? { total: 0, done: 0 };
      cur.total += Number(k.n);
      if (k.state === "done") cur.done += Number(k.n);
      parts.subtasks.set(k.parent_id, cur);
    }
  }
  return parts;
}

/** Records the totals of a task's freshly computed Changes (insert or replace). */
export async function putDiffStat(db: Db, taskId: string, stat: { files: number; additions: number; deletions: number }, now: string): Promise<void> {
  await db
    .insertInto("task_diff_stats")
    .values({ task_id: taskId, ...stat, updated_at: now })
    .onConflict((oc) => oc.column("task_id").doUpdateSet({ ...stat, updated_at: now }))
    .execute();
}

/** The exact query of one page of a task's sessions. */
export function sessionPageQuery(db: Db, taskId: string, page: PageSpec<KeyCursor>) {
  let q = db.selectFrom("sessions").selectAll().where("task_id", "=", taskId);
  const after = page.after;
  if (after) q = q.where((eb) => afterKey(eb, after));
  q = q.orderBy("created_at").orderBy("id");
  return page.limit === undefined ? q : q.limit(page.limit + 1);
}

export async function listSessionPage(db: Db, taskId: string, page: PageSpec<KeyCursor>): Promise<RowsPage<SessionRecord>> {
  const { rows, more } = cut(await sessionPageQuery(db, taskId, page).execute(), page.limit);
  return { rows: rows.map(toSession), more };
}

/** The exact query of one page of cleanup jobs (all, or one task's). */
export function cleanupJobPageQuery(db: Db, taskId: string | undefined, page: PageSpec<KeyCursor>) {
  let q = db.selectFrom("cleanup_jobs").selectAll();
  if (taskId !== undefined) q = q.where("task_id", "=", taskId);
  const after = page.after;
  if (after) q = q.where((eb) => afterKey(eb, after));
  q = q.orderBy("created_at").orderBy("id");
  return page.limit === undefined ? q : q.limit(page.limit + 1);
}

export async function listCleanupJobPage(db: Db, taskId: string | undefined, page: PageSpec<KeyCursor>): Promise<RowsPage<CleanupJobRecord>> {
  const { rows, more } = cut(await cleanupJobPageQuery(db, taskId, page).execute(), page.limit);
  return { rows: rows.map(toJob), more };
}

/**
 * The exact query of one page of a session's messages, from the newest: the `limit` messages
 * just before `before` (a seq), newest first; the caller returns them oldest first.
 */
export function messagePageQuery(db: Db, sessionId: string, page: { before?: number | undefined; limit: number }) {
  let q = db.selectFrom("messages").selectAll().where("session_id", "=", sessionId);
  if (page.before !== undefined) q = q.where("seq", "<", page.before);
  return q.orderBy("seq", "desc").limit(page.limit + 1);
}

/** Messages of one page, oldest first, with the seq of the oldest (the next page's `before`). */
export async function listMessagePage(
  db: Db,
  sessionId: string,
  page: { before?: number | undefined; limit: number },
): Promise<RowsPage<MessageRecord> & { oldestSeq: number | null }> {
  const { rows, more } = cut(await messagePageQuery(db, sessionId, page).execute(), page.limit);
  rows.reverse();
  return { rows: rows.map(toMessage), more, oldestSeq: rows.length > 0 ? Number(rows[0]?.seq) : null };
}
