/**
 * The board (UX-2): tasks in columns by state, kept live by task.* events, with the form that
 * creates a task and a toggle between active and archived tasks.
 */
import type { Task } from "@grove/protocol";
import { api } from "../api.js";
import { h, isNotOlder, render } from "../dom.js";
import { errorSlot } from "../errors.js";
import type { View } from "../router.js";
import { createTaskForm } from "./task-form.js";

export const TASK_STATES: readonly Task["state"][] = ["todo", "in_progress", "review", "done", "failed"];

/** "in_progress" → "in progress" for headings; the raw value stays in data attributes. */
export const label = (state: string) => state.replace(/_/g, " ");

function card(t: Task): HTMLElement {
  return h(
    "article",
    { class: "task-card", dataset: { taskId: t.id, state: t.state } },
    h("a", { href: `/tasks/${t.id}`, class: "task-title" }, t.title),
    h(
      "div",
      { class: "meta" },
      h("span", { class: `badge state-${t.state}` }, t.state),
      ` · ${t.repositories.length} repo${t.repositories.length === 1 ? "" : "s"}`,
      t.archivedAt ? h("span", { class: "badge archived" }, "archived") : null,
    ),
  );
}

export const boardView: View = (root, ctx) => {
  const tasks = new Map<string, Task>();
  const errors = errorSlot();
  const archived = h("input", { type: "checkbox", id: "show-archived" });
  const columns = h("div", { class: "board", "aria-live": "polite" });

  const draw = () => {
    const sorted = [...tasks.values()].sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
    render(
      columns,
      TASK_STATES.map((state) => {
        const items = sorted.filter((t) => t.state === state);
        return h(
          "section",
          { class: "column", dataset: { state }, "aria-label": label(state) },
          h("h2", null, label(state), h("span", { class: "count" }, String(items.length))),
          items.length ? items.map(card) : h("p", { class: "empty" }, "—"),
        );
      }),
    );
  };

  const load = async () => {
    try {
      const list = await api.get<Task[]>(`/tasks?archived=${archived.checked}`);
      tasks.clear();
      for (const t of list) tasks.set(t.id, t);
      errors.clear();
    } catch (e) {
      errors.show(e, "could not load tasks");
    }
    draw();
  };

  // Only tasks matching the archived toggle belong on the board.
  const fits = (t: Task) => (t.archivedAt !== null) === archived.checked;
  const upsert = ({ task }: { task: Task }) => {
    if (!isNotOlder(tasks.get(task.id), task)) return;
    if (fits(task)) tasks.set(task.id, task);
    else tasks.delete(task.id);
    draw();
  };
  const offs = [
    ctx.events.on("task.created", upsert),
    ctx.events.on("task.updated", upsert),
    ctx.events.on("task.deleted", ({ taskId }) => {
      tasks.delete(taskId);
      draw();
    }),
    ctx.events.on("reconnected", () => void load()),
  ];

  archived.addEventListener("change", () => void load());
  render(
    root,
    h(
      "div",
      { class: "board-head" },
      h("h1", null, "Board"),
      h("label", { class: "toggle" }, archived, " Show archived tasks"),
    ),
    errors.el,
    columns,
    createTaskForm(),
  );
  draw();
  void load();
  return () => offs.forEach((off) => off());
};
