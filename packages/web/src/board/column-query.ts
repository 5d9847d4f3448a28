/**
 * The read of one board column (an infinite query of summary pages), shared by the column and
 * by the start-up prefetch (main.tsx), which asks for the first pages before React renders.
 */
import { infiniteQueryOptions, type QueryClient } from "@tanstack/react-query";
import { keys } from "../api/keys.js";
import { BOARD_PAGE, listTaskSummaries, type TaskQuery } from "../api/resources.js";
import type { TaskFilter } from "./filter.js";

/** With the agent filter (applied in the page), pages are larger: fewer reads to fill a screen. */
const AGENT_PAGE = 250;

export const TASK_STATES = ["todo", "in_progress", "review", "done", "failed"] as const;

export function columnQuery(query: TaskQuery, agent: string) {
  const limit = agent ? AGENT_PAGE : BOARD_PAGE;
  return infiniteQueryOptions({
    queryKey: keys.taskPages(query.archived, query.state, query.repositoryId, query.q, limit),
    queryFn: ({ pageParam }) => listTaskSummaries(query, pageParam, limit),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
}

/** The board's filters as the address bar holds them. */
export function filterFromUrl(): Omit<TaskFilter, "archived"> {
  const p = new URLSearchParams(location.search);
  return { q: p.get("q") ?? "", repositoryId: p.get("repo") ?? "", state: p.get("state") ?? "", agent: p.get("agent") ?? "" };
}

/** On a board address: starts the first page of every shown column now. */
export function prefetchBoard(qc: QueryClient): void {
  const archived = location.pathname === "/archived";
  if (location.pathname !== "/" && !archived) return;
  const f = filterFromUrl();
  for (const state of TASK_STATES) {
    if (f.state && f.state !== state) continue;
    void qc.prefetchInfiniteQuery(columnQuery({ archived, state, repositoryId: f.repositoryId, q: f.q.trim() }, f.agent));
  }
}
