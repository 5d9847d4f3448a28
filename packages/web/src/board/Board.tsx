/**
 * The board (UX-2): tasks in columns by state (each column pages, scrolls and virtualizes on
 * its own, board/Column.tsx), search and filters that combine (state, repository and text on
 * the server, agent state from the summaries), drag and drop between columns (mouse and
 * keyboard) that moves a task with `PATCH /tasks/:id`, archived tasks as their own view, and
 * the create-task form, opened by the "New task" button at the top or the `c` key (WEB-25).
 */
import type { Task, TaskSummary } from "@grove/protocol";
import { DndContext, DragOverlay, KeyboardSensor, PointerSensor, useSensor, useSensors, type DragEndEvent, type DragStartEvent } from "@dnd-kit/core";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { call } from "../api/client.js";
import { keys } from "../api/keys.js";
import { getTaskCounts, listRepositories } from "../api/resources.js";
import type { TaskFilter } from "./filter.js";
import { putSummary } from "../live/board-cache.js";
import { putTask } from "../live/cache.js";
import { ErrorBox } from "../ui/ErrorBox.js";
import { taskStateWords } from "../ui/words.js";
import { Column } from "./Column.js";
import { filterFromUrl, TASK_STATES } from "./column-query.js";
import { BoardStart } from "./BoardStart.js";
import { CreateTask } from "./CreateTask.js";
import { onNewTaskRequest } from "./new-task-request.js";
import { columnCollision, columnKeys } from "./dnd.js";
import { Filters } from "./Filters.js";
import { CardBody } from "./TaskCard.js";
import { MoveContext } from "./MoveMenu.js";

const EMPTY: Omit<TaskFilter, "archived"> = { q: "", repositoryId: "", state: "", agent: "" };

/** The text as the server is asked for it: settled for 250 ms, so typing does not read per key. */
function useSettled(text: string, ms = 250): string {
  const [settled, setSettled] = useState(text);
  useEffect(() => {
    const t = setTimeout(() => setSettled(text), ms);
    return () => clearTimeout(t);
  }, [text, ms]);
  return settled;
}

/** A key typed into a field belongs to the field, never to a page shortcut. */
export function typingInField(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  return !!el && (el.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(el.tagName));
}

/** WEB-25: `c` (no modifier, not while typing) opens the new-task form and puts the cursor in its title. */
function useNewTaskKey(open: () => void, enabled: boolean) {
  useEffect(() => {
    if (!enabled) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== "c" || e.ctrlKey || e.metaKey || e.altKey || e.repeat || typingInField(e.target)) return;
      e.preventDefault();
      open();
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [open, enabled]);
}

export function Board({ archived }: { archived: boolean }) {
  const qc = useQueryClient();
  const [creating, setCreating] = useState(false);
  // Bumped on every open, so a second `c` while the form is open moves the cursor back to its title.
  const [focusTick, setFocusTick] = useState(0);
  const newTaskButton = useRef<HTMLButtonElement>(null);
  const openCreate = useCallback(() => {
    setCreating(true);
    setFocusTick((n) => n + 1);
  }, []);
  const closeCreate = useCallback(() => {
    setCreating(false);
    newTaskButton.current?.focus();
  }, []);
  useNewTaskKey(openCreate, !archived);
  useEffect(() => (archived ? undefined : onNewTaskRequest(openCreate)), [archived, openCreate]);
  const repos = useQuery({ queryKey: keys.repositories, queryFn: listRepositories });
  const [filter, setFilter] = useState(filterFromUrl);
  const q = useSettled(filter.q.trim());
  const [dragging, setDragging] = useState<TaskSummary | null>(null);
  const [moveError, setMoveError] = useState<unknown>(null);
  const [counts, setCounts] = useState<Record<string, { loaded: number; more: boolean }>>({});
  const onCount = useCallback((state: string, loaded: number, more: boolean) => {
    setCounts((c) => (c[state]?.loaded === loaded && c[state]?.more === more ? c : { ...c, [state]: { loaded, more } }));
  }, []);

  // Filters live in the address bar too, so a filtered board can be shared or reloaded.
  useEffect(() => {
    const p = new URLSearchParams();
    if (filter.q) p.set("q", filter.q);
    if (filter.repositoryId) p.set("repo", filter.repositoryId);
    if (filter.state) p.set("state", filter.state);
    if (filter.agent) p.set("agent", filter.agent);
    const qs = p.toString();
    history.replaceState(history.state, "", location.pathname + (qs ? `?${qs}` : ""));
  }, [filter]);

  const sensors = useSensors(useSensor(PointerSensor, { activationConstraint: { distance: 6 } }), useSensor(KeyboardSensor, { coordinateGetter: columnKeys }));

  const move = async (task: TaskSummary, state: Task["state"]) => {
    setMoveError(null);
    // Shown in the target column at once; the server's task.summary frame confirms it.
    putSummary(qc, { ...task, state });
    try {
      const saved = await call("updateTask", { params: { id: task.id }, body: { state } });
      putTask(qc, saved);
    } catch (e) {
      putSummary(qc, task);
      setMoveError(e);
    }
  };
  // One stable function for every card's Move to… menu (cards are memoized).
  const moveRef = useRef(move);
  moveRef.current = move;
  const moveTo = useCallback((task: TaskSummary, state: Task["state"]) => void moveRef.current(task, state), []);
  const onDragStart = (e: DragStartEvent) => setDragging((e.active.data.current as { task: TaskSummary } | undefined)?.task ?? null);
  const onDragEnd = (e: DragEndEvent) => {
    setDragging(null);
    const task = (e.active.data.current as { task: TaskSummary } | undefined)?.task;
    const to = e.over?.id as Task["state"] | undefined;
    if (task && to && to !== task.state) void move(task, to);
  };

  const queries = useMemo(
    () => Object.fromEntries(TASK_STATES.map((s) => [s, { archived, state: s, repositoryId: filter.repositoryId, q }])),
    [archived, filter.repositoryId, q],
  );
  const shown = TASK_STATES.filter((s) => !filter.state || s === filter.state);
  // WEB-30: exact counts from the server, for its filters; the agent filter is the page's own, so
  // under it the count is what passed so far ("50+" while columns have more pages).
  const exact = useQuery({
    queryKey: keys.taskCounts(archived, filter.repositoryId, q),
    queryFn: () => getTaskCounts({ archived, repositoryId: filter.repositoryId, q }),
    enabled: !filter.agent,
  });
  const totals = filter.agent ? undefined : exact.data?.counts;
  const unfiltered = !filter.q && !filter.repositoryId && !filter.state && !filter.agent;
  const openTasks = unfiltered ? exact.data?.total : undefined;
  // WEB-49.4: an empty board after archiving is not a first visit; the start card says so.
  const archivedCounts = useQuery({
    queryKey: keys.taskCounts(true, "", ""),
    queryFn: () => getTaskCounts({ archived: true, repositoryId: "", q: "" }),
    enabled: !archived && openTasks === 0,
  });
  const archivedTotal = archivedCounts.data?.total;
  const loaded = totals ? shown.reduce((n, s) => n + totals[s], 0) : shown.reduce((n, s) => n + (counts[s]?.loaded ?? 0), 0);
  const more = totals ? false : shown.some((s) => counts[s]?.more);

  return (
    <div className="board-page">
      <div className="board-head">
        <h1>{archived ? "Archived tasks" : "Board"}</h1>
        {archived ? null : (
          <button
            type="button"
            id="new-task"
            ref={newTaskButton}
            aria-expanded={creating}
            aria-keyshortcuts="c"
            title="New task (c)"
            onClick={creating ? closeCreate : openCreate}
          >
            New task
          </button>
        )}
        <Filters value={filter} onChange={setFilter} onClear={() => setFilter(EMPTY)} repositories={repos.data ?? []} shown={loaded} more={more} />
      </div>
      {archived ? null : <BoardStart repositories={repos.data?.length} tasks={openTasks} archived={archivedTotal} />}
      {creating && !archived ? <CreateTask repositories={repos.data} focusTick={focusTick} onClose={closeCreate} /> : null}
      <ErrorBox error={moveError} context="Could not move the task" />
      <MoveContext.Provider value={moveTo}>
        <DndContext
          sensors={sensors}
          collisionDetection={columnCollision}
          onDragStart={onDragStart}
          onDragEnd={onDragEnd}
          onDragCancel={() => setDragging(null)}
          accessibility={{
            announcements: {
              onDragStart: ({ active }) =>
                `Picked up ${(active.data.current as { task: TaskSummary }).task.title}. Use the left and right arrow keys to change column, Space to drop.`,
              onDragOver: ({ over }) => (over ? `Over ${taskStateWords(String(over.id))}.` : "Not over a column."),
              onDragEnd: ({ over }) => (over ? `Moved to ${taskStateWords(String(over.id))}.` : "Dropped; nothing changed."),
              onDragCancel: () => "Move cancelled; nothing changed.",
            },
          }}
        >
          <div className="board" aria-live="polite">
            {TASK_STATES.map((s) => (
              <Column
                key={s}
                query={queries[s]!}
                enabled={!filter.state || filter.state === s}
                agent={filter.agent}
                draggable={!archived}
                onCount={onCount}
                total={totals?.[s]}
              />
            ))}
          </div>
          <DragOverlay>
            {dragging ? (
              <article className="task-card overlay">
                <CardBody task={dragging} />
              </article>
            ) : null}
          </DragOverlay>
        </DndContext>
      </MoveContext.Provider>
    </div>
  );
}
