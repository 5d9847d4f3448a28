/**
 * The board's cached pages (one infinite query per column and filter) kept current from
 * `task.summary` frames: a summary replaces the card with its id, leaves the columns it no
 * longer belongs to, and enters the loaded range of the columns it matches, at its place in
 * the newest-first order. The board never refetches a list for an event.
 */
import type { Page, RunnerState, TaskSummary } from "@grove/protocol";
import type { InfiniteData, QueryClient, QueryKey } from "@tanstack/react-query";

type Pages = InfiniteData<Page<TaskSummary>, string | undefined>;

/** The column/filter a cached query holds, read back from its key (api/keys.ts `taskPages`). */
function filterOf(key: QueryKey): { archived: boolean; state: string; repositoryId: string; q: string } | undefined {
  if (key[0] !== "taskPages") return undefined;
  const [, archived, state, repositoryId, q] = key as readonly [string, boolean, string, string, string];
  return { archived, state, repositoryId, q };
}

/** Newest first by (createdAt, id), as the server orders `order=newest`. */
const before = (a: TaskSummary, b: TaskSummary) => a.createdAt > b.createdAt || (a.createdAt === b.createdAt && a.id > b.id);

function place(data: Pages, s: TaskSummary, matches: boolean, titleOnly: boolean): Pages {
  let had = false;
  let stale = false;
  const pages = data.pages.map((p) => {
    const cur = p.items.find((x) => x.id === s.id);
    if (!cur) return p;
    had = true;
    if (cur.updatedAt > s.updatedAt) stale = true;
    return { ...p, items: p.items.filter((x) => x.id !== s.id) };
  });
  if (stale) return data;
  // The text filter also matches descriptions, which a summary lacks: a card already listed
  // stays listed when only the title test fails.
  if (!(matches || (had && titleOnly))) return had ? { ...data, pages } : data;
  // Only inside the loaded range: past it, the next page read will bring it.
  let i = pages.findIndex((p) => p.items.length > 0 && before(s, p.items[p.items.length - 1]!));
  if (i < 0) {
    const last = pages[pages.length - 1];
    if (last && last.nextCursor !== null) return { ...data, pages };
    i = pages.length - 1;
  }
  if (i < 0) return data;
  const target = pages[i]!;
  const at = target.items.findIndex((x) => before(s, x));
  const items = [...target.items];
  items.splice(at < 0 ? items.length : at, 0, s);
  return { ...data, pages: pages.map((p, j) => (j === i ? { ...p, items } : p)) };
}

/** Applies one summary to every cached board column. */
export function putSummary(qc: QueryClient, s: TaskSummary): void {
  for (const [key, data] of qc.getQueriesData<Pages>({ queryKey: ["taskPages"] })) {
    const f = filterOf(key);
    if (!f || !data) continue;
    const structural =
      (s.archivedAt !== null) === f.archived && s.state === f.state && (!f.repositoryId || s.repositories.some((r) => r.repositoryId === f.repositoryId));
    const titleMatch = !f.q || s.title.toLowerCase().includes(f.q.toLowerCase());
    qc.setQueryData<Pages>(key, place(data, s, structural && titleMatch, structural && !!f.q));
  }
}

/**
 * Sets `runnerState` on every cached card whose worktrees `runnerId` holds (a
 * `runner.updated` frame: the runner stopped, its heartbeat went stale, or it came back).
 */
export function putRunnerState(qc: QueryClient, runnerId: string, state: RunnerState): void {
  for (const [key, data] of qc.getQueriesData<Pages>({ queryKey: ["taskPages"] })) {
    if (!data || !data.pages.some((p) => p.items.some((x) => x.runnerId === runnerId && x.runnerState !== state))) continue;
    const pages = data.pages.map((p) => ({
      ...p,
      items: p.items.map((x) => (x.runnerId === runnerId && x.runnerState !== state ? { ...x, runnerState: state } : x)),
    }));
    qc.setQueryData<Pages>(key, { ...data, pages });
  }
}

/** Drops a deleted task from every cached board column. */
export function dropSummary(qc: QueryClient, taskId: string): void {
  for (const [key, data] of qc.getQueriesData<Pages>({ queryKey: ["taskPages"] })) {
    if (!data || !data.pages.some((p) => p.items.some((x) => x.id === taskId))) continue;
    qc.setQueryData<Pages>(key, { ...data, pages: data.pages.map((p) => ({ ...p, items: p.items.filter((x) => x.id !== taskId) })) });
  }
}

/** A summary any cached column holds (for titles of attention items). */
export function findSummary(qc: QueryClient, taskId: string): TaskSummary | undefined {
  for (const [, data] of qc.getQueriesData<Pages>({ queryKey: ["taskPages"] })) {
    for (const p of data?.pages ?? []) {
      const hit = p.items.find((x) => x.id === taskId);
      if (hit) return hit;
    }
  }
  return undefined;
}
