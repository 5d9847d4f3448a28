/**
 * The board (UX-2): tasks in columns by state (each column scrolls on its own), search and
 * filters that combine, drag and drop between columns (mouse and keyboard) that moves a task
 * with `PATCH /tasks/:id`, archived tasks as their own view, and the create-task form.
 */
import type { Task } from "@grove/protocol";
import { DndContext, DragOverlay, KeyboardSensor, PointerSensor, useSensor, useSensors, type DragEndEvent, type DragStartEvent } from "@dnd-kit/core";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useMemo, useState } from "react";
import { api, enc } from "../api/client.js";
import { keys } from "../api/keys.js";
import { listSessions, listTasks, listRepositories } from "../api/resources.js";
import type { PermissionAsk, TaskFilter } from "../api/types.js";
import { ErrorBox } from "../ui/ErrorBox.js";
import { label } from "../ui/Field.js";
import { Column } from "./Column.js";
import { CreateTask } from "./CreateTask.js";
import { columnCollision, columnKeys } from "./dnd.js";
import { passes } from "./filter.js";
import { Filters } from "./Filters.js";
import { CardBody } from "./TaskCard.js";
import type { Session } from "@grove/protocol";

export const TASK_STATES: readonly Task["state"][] = ["todo", "in_progress", "review", "done", "failed"];

const EMPTY: Omit<TaskFilter, "archived"> = { q: "", repositoryId: "", state: "", agent: "" };

function filterFromUrl(): Omit<TaskFilter, "archived"> {
  const p = new URLSearchParams(location.search);
  return { q: p.get("q") ?? "", repositoryId: p.get("repo") ?? "", state: p.get("state") ?? "", agent: p.get("agent") ?? "" };
}

export function Board({ archived }: { archived: boolean }) {
  const qc = useQueryClient();
  const tasks = useQuery({ queryKey: keys.tasks(archived), queryFn: () => listTasks(archived) });
  const repos = useQuery({ queryKey: keys.repositories, queryFn: listRepositories });
  const [filter, setFilter] = useState(filterFromUrl);
  const [dragging, setDragging] = useState<Task | null>(null);
  const [moveError, setMoveError] = useState<unknown>(null);
  const [, bump] = useState(0);

  const names = useMemo(() => new Map((repos.data ?? []).map((r) => [r.id, r.name])), [repos.data]);
  const repoName = (id: string) => names.get(id) ?? id;

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

  // An agent filter needs every listed task's sessions; read the missing ones a few at a time.
  useEffect(() => {
    if (!filter.agent || !tasks.data) return;
    let stop = false;
    const todo = tasks.data.filter((t) => qc.getQueryData(keys.sessions(t.id)) === undefined).map((t) => t.id);
    const worker = async () => {
      for (let id = todo.shift(); id && !stop; id = todo.shift()) {
        await qc.fetchQuery({ queryKey: keys.sessions(id), queryFn: () => listSessions(id!) }).catch(() => undefined);
        bump((n) => n + 1);
      }
    };
    void Promise.all([worker(), worker(), worker(), worker()]);
    return () => {
      stop = true;
    };
  }, [filter.agent, tasks.data, qc]);

  const activityOf = (taskId: string) => {
    const sessions = qc.getQueryData<Session[]>(keys.sessions(taskId));
    const running = sessions?.find((s) => s.state === "running" || s.state === "starting");
    const asks = running ? (qc.getQueryData<PermissionAsk[]>(keys.permissions(running.id))?.length ?? 0) : 0;
    return { sessions, asks };
  };
  const shown = (tasks.data ?? []).filter((t) => passes(t, { ...filter, archived }, repoName, activityOf));
  const byState = new Map(TASK_STATES.map((s) => [s, [] as Task[]]));
  for (const t of [...shown].sort((a, b) => b.updatedAt.localeCompare(a.updatedAt))) byState.get(t.state)?.push(t);

  const sensors = useSensors(useSensor(PointerSensor, { activationConstraint: { distance: 6 } }), useSensor(KeyboardSensor, { coordinateGetter: columnKeys }));

  const move = async (task: Task, state: Task["state"]) => {
    setMoveError(null);
    const moved = { ...task, state };
    qc.setQueryData<Task[]>(keys.tasks(false), (list) => list?.map((t) => (t.id === task.id ? moved : t)));
    try {
      const saved = await api.patch<Task>(`/tasks/${enc(task.id)}`, { state });
      qc.setQueryData<Task[]>(keys.tasks(false), (list) => list?.map((t) => (t.id === saved.id && saved.updatedAt >= t.updatedAt ? saved : t)));
      qc.setQueryData(keys.task(saved.id), saved);
    } catch (e) {
      qc.setQueryData<Task[]>(keys.tasks(false), (list) => list?.map((t) => (t.id === task.id ? task : t)));
      setMoveError(e);
    }
  };
  const onDragStart = (e: DragStartEvent) => setDragging((e.active.data.current as { task: Task } | undefined)?.task ?? null);
  const onDragEnd = (e: DragEndEvent) => {
    setDragging(null);
    const task = (e.active.data.current as { task: Task } | undefined)?.task;
    const to = e.over?.id as Task["state"] | undefined;
    if (task && to && to !== task.state) void move(task, to);
  };

  return (
    <div className="board-page">
      <div className="board-head">
        <h1>{archived ? "Archived tasks" : "Board"}</h1>
        <Filters value={filter} onChange={setFilter} onClear={() => setFilter(EMPTY)} repositories={repos.data ?? []} shown={shown.length} total={tasks.data?.length ?? 0} />
      </div>
      <ErrorBox error={tasks.error} context="Could not load tasks" />
      <ErrorBox error={moveError} context="Could not move the task" />
      <DndContext
        sensors={sensors}
        collisionDetection={columnCollision}
        onDragStart={onDragStart}
        onDragEnd={onDragEnd}
        onDragCancel={() => setDragging(null)}
        accessibility={{
          announcements: {
            onDragStart: ({ active }) => `Picked up ${(active.data.current as { task: Task }).task.title}. Use the left and right arrow keys to change column, Space to drop.`,
            onDragOver: ({ over }) => (over ? `Over ${label(String(over.id))}.` : "Not over a column."),
            onDragEnd: ({ over }) => (over ? `Moved to ${label(String(over.id))}.` : "Dropped; nothing changed."),
            onDragCancel: () => "Move cancelled; nothing changed.",
          },
        }}
      >
        <div className="board" aria-live="polite">
          {TASK_STATES.map((s) => (
            <Column key={s} state={s} tasks={byState.get(s) ?? []} repoName={repoName} draggable={!archived} />
          ))}
        </div>
        <DragOverlay>{dragging ? <article className="task-card overlay"><CardBody task={dragging} repoName={repoName} /></article> : null}</DragOverlay>
      </DndContext>
      {archived ? null : <CreateTask repositories={repos.data} />}
    </div>
  );
}
