/**
 * One column of the board: a drop target for its state, scrolling on its own, virtualized,
 * and paged — it reads the newest page of its tasks (`listTaskSummaries`) and the next page
 * when the person scrolls near its end. Event frames keep the loaded pages current
 * (live/board-cache.ts); the column never re-reads for an event.
 */
import type { Task, TaskSummary } from "@grove/protocol";
import { useDroppable } from "@dnd-kit/core";
import { useInfiniteQuery } from "@tanstack/react-query";
import { useVirtualizer } from "@tanstack/react-virtual";
import { memo, useEffect, useMemo, useRef } from "react";
import type { TaskQuery } from "../api/resources.js";
import { ErrorBox } from "../ui/ErrorBox.js";
import { taskStateWords } from "../ui/words.js";
import { columnQuery } from "./column-query.js";
import { passesAgent } from "./filter.js";
import { TaskCard } from "./TaskCard.js";

/** Cards are placed on the first render already (measured for real right after). */
const FIRST_RECT = { width: 260, height: Math.max(400, (globalThis.innerHeight ?? 900) - 200) };

export interface ColumnProps {
  query: TaskQuery;
  /** False when the state filter names another column: nothing is read. */
  enabled: boolean;
  agent: string;
  draggable: boolean;
  onCount(state: Task["state"], loaded: number, more: boolean): void;
  /** WEB-30: the exact count from `GET /tasks/counts`; undefined while unknown or under the agent filter (applied in the page). */
  total?: number | undefined;
}

/** Memoized: the board re-renders for counts and drags; a column only for its own data. */
export const Column = memo(function Column({ query, enabled, agent, draggable, onCount, total }: ColumnProps) {
  const { state } = query;
  const { setNodeRef, isOver } = useDroppable({ id: state });
  const pages = useInfiniteQuery({ ...columnQuery(query, agent), enabled });
  const tasks = useMemo<TaskSummary[]>(
    () => (enabled ? (pages.data?.pages.flatMap((p) => p.items) ?? []).filter((t) => passesAgent(t, agent)) : []),
    [pages.data, agent, enabled],
  );
  const more = enabled && pages.hasNextPage;
  const scroller = useRef<HTMLDivElement | null>(null);
  const rows = useVirtualizer({
    count: tasks.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => 118,
    overscan: 4,
    getItemKey: (i) => tasks[i]!.id,
    initialRect: FIRST_RECT,
  });
  const items = rows.getVirtualItems();
  const lastShown = items.length > 0 ? items[items.length - 1]!.index : -1;

  // The next page when the end of what is loaded comes into view (or nothing passes the agent filter yet).
  useEffect(() => {
    if (more && !pages.isFetchingNextPage && !pages.isError && lastShown >= tasks.length - 5) void pages.fetchNextPage();
  }, [more, pages, lastShown, tasks.length]);
  useEffect(() => onCount(state, tasks.length, more), [onCount, state, tasks.length, more]);

  const headingId = `col-${state}`;
  return (
    <section ref={setNodeRef} className={`column ${isOver ? "over" : ""}`} data-state={state} aria-labelledby={headingId} aria-busy={pages.isFetching}>
      <h2 id={headingId}>
        {taskStateWords(state)} <span className="count">{total !== undefined && enabled ? String(total) : `${tasks.length}${more ? "+" : ""}`}</span>
      </h2>
      <ErrorBox error={pages.error} context="Could not load tasks" />
      <div className="column-body" ref={scroller} tabIndex={tasks.length ? 0 : -1} aria-label={`${taskStateWords(state)} tasks`} role="region">
        {tasks.length === 0 && !more ? <p className="empty">—</p> : null}
        <div style={{ height: rows.getTotalSize(), position: "relative" }}>
          {items.map((v) => {
            const t = tasks[v.index]!;
            return (
              <div
                key={v.key}
                data-index={v.index}
                ref={rows.measureElement}
                className="card-slot"
                style={{ position: "absolute", top: 0, left: 0, right: 0, transform: `translateY(${v.start}px)` }}
              >
                <TaskCard task={t} draggable={draggable} />
              </div>
            );
          })}
        </div>
      </div>
    </section>
  );
});
