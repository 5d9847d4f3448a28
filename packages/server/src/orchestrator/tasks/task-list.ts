import { TaskState, type ListTasksQuery, type Page, type Task, type TaskCounts, type TaskCountsQuery, type TaskSummary } from "@grove/protocol";
import { decodeCursor, encodeCursor } from "../../domain/cursor.js";
import type { TaskRecord } from "../../domain/records.js";
import { taskRunner, type TaskRunner } from "../../domain/runner.js";
import { taskSummary, type SummaryPullRequest } from "../../domain/task-summary.js";
import { taskView } from "../../domain/views.js";
import type { TaskFilter } from "../../store/list-pages.js";
import type { Deps } from "../context.js";

/** Which sessions wait for a person's answer (in this process: permission questions live here). */
export type AskingSessions = () => ReadonlySet<string>;

/**
 * `{runnerId, runnerState}` of each task, from one join of environments and runners
 * per batch (not a read per task). The state is computed now, from each runner's heartbeat, so a
 * runner that went quiet shows offline on the next read without anyone announcing it.
 */
export async function runnersOf(deps: Pick<Deps, "store" | "runnerId">, taskIds: readonly string[]): Promise<Map<string, TaskRunner>> {
  const rows = await deps.store.placement.taskRunners(taskIds);
  const now = Date.now();
  return new Map(taskIds.map((id) => [id, taskRunner(rows.get(id), deps.runnerId, now)]));
}

/** Summaries of already loaded tasks: a few indexed queries for the whole batch, never git. */
export async function summariesOf(deps: Pick<Deps, "store" | "runnerId">, tasks: readonly TaskRecord[], asking: AskingSessions): Promise<TaskSummary[]> {
  const ids = tasks.map((t) => t.id);
  const [parts, runners] = await Promise.all([deps.store.taskSummaryParts(ids), runnersOf(deps, ids)]);
  const askingNow = asking();
  return tasks.map((t) =>
    taskSummary(t, {
      runner: runners.get(t.id),
      repositoryNames: parts.repositoryNames,
      slots: parts.slots.get(t.id) ?? [],
      sessions: parts.sessions.get(t.id) ?? [],
      diffStat: parts.diffStats.get(t.id),
      asking: askingNow,
      questioning: parts.questioning,
      pullRequests: parts.pullRequests.get(t.id) as SummaryPullRequest[] | undefined,
      progress: parts.progress.get(t.id),
      subtasks: parts.subtasks.get(t.id),
    }),
  );
}

/** Full tasks of a list, each with its runner. */
async function fullTasksOf(deps: Pick<Deps, "store" | "runnerId">, rows: readonly TaskRecord[]): Promise<Task[]> {
  const runners = await runnersOf(
    deps,
    rows.map((t) => t.id),
  );
  return rows.map((t) => ({ ...taskView(t), ...(runners.get(t.id) ?? { runnerId: null, runnerState: null }) }));
}

/**
 * `GET /tasks`: filters combine; `view=summary` gives the board's shape; with
 * `limit` one keyset page `{items, nextCursor}`, without it the plain array (docs/specs/lists.md "Shapes").
 */
export async function listTasks(
  deps: Pick<Deps, "store" | "runnerId">,
  q: ListTasksQuery,
  asking: AskingSessions,
): Promise<Task[] | TaskSummary[] | Page<Task | TaskSummary>> {
  const filter: TaskFilter = { archived: q.archived === "true", states: q.state, repositoryId: q.repositoryId, parentId: q.parentId, q: q.q };
  const after = q.cursor === undefined ? undefined : decodeCursor(q.cursor);
  const { rows, more } = await deps.store.listTaskPage(filter, { after, limit: q.limit, newest: q.order === "newest" });
  const items = q.view === "summary" ? await summariesOf(deps, rows, asking) : await fullTasksOf(deps, rows);
  if (q.limit === undefined) return items;
  const last = rows.at(-1);
  return { items, nextCursor: more && last ? encodeCursor({ at: last.createdAt, id: last.id }) : null };
}

/** WEB-30 `GET /tasks/counts`: every state's count (0 when empty) and their total, under the same filters as `GET /tasks`. */
export async function countTasks(deps: Pick<Deps, "store">, q: TaskCountsQuery): Promise<TaskCounts> {
  const found = await deps.store.countTasksByState({ archived: q.archived === "true", repositoryId: q.repositoryId, q: q.q });
  const counts = Object.fromEntries(TaskState.options.map((s) => [s, found.get(s) ?? 0])) as TaskCounts["counts"];
  return { counts, total: Object.values(counts).reduce((a, b) => a + b, 0) };
}
