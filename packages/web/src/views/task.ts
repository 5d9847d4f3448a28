/**
 * The task page (`/tasks/:id`): title, state (a person moves it, e.g. to done), description;
 * sessions with the live stream; Changes; repositories and environment; archive/delete and
 * cleanup jobs. Each panel loads and listens for itself; this view composes them.
 */
import type { Repository, Task } from "@grove/protocol";
import { api, enc } from "../api.js";
import { field, h, render, when } from "../dom.js";
import { act, errorSlot } from "../errors.js";
import type { View } from "../router.js";
import { TASK_STATES, label } from "./board.js";
import { changesPanel } from "./changes.js";
import type { Component } from "./component.js";
import { environmentPanel } from "./environment.js";
import { lifecyclePanel } from "./lifecycle.js";
import { sessionsPanel } from "./sessions.js";

export const taskView: View = (root, ctx, { id = "" }) => {
  const errors = errorSlot();
  const head = h("header", { class: "task-head" });
  const notice = h("div", { role: "status" });
  const parts: Component[] = [];
  let lifecycle: ReturnType<typeof lifecyclePanel> | undefined;
  let task: Task | undefined;
  let disposed = false;
  render(root, h("p", null, h("a", { href: "/" }, "← Board")), head, errors.el, notice);

  const drawHead = (t: Task) => {
    const state = h("select", { name: "state" }, TASK_STATES.map((s) => h("option", { value: s, selected: s === t.state }, label(s))));
    const move = h("button", { type: "button", class: "secondary" }, "Move");
    move.addEventListener("click", () => void act(move, errors, () => api.patch<Task>(`/tasks/${enc(t.id)}`, { state: state.value }).then(drawHead)));
    render(
      head,
      h("h1", { id: "task-title" }, t.title),
      h(
        "div",
        { class: "task-meta" },
        h("span", { class: `badge state-${t.state}`, id: "task-state", dataset: { state: t.state } }, t.state),
        t.archivedAt ? h("span", { class: "badge archived" }, `archived ${when(t.archivedAt)}`) : null,
        h("span", { class: "muted" }, `created ${when(t.createdAt)} · `, h("code", null, t.id)),
        h("span", { class: "move" }, field("State", state), move),
      ),
      t.description ? h("p", { class: "description" }, t.description) : null,
    );
  };

  const offs = [
    ctx.events.on("task.updated", ({ task: t }) => {
      if (t.id !== id) return;
      task = t;
      drawHead(t);
      lifecycle?.update(t);
    }),
    ctx.events.on("task.deleted", ({ taskId }) => {
      if (taskId !== id) return;
      render(notice, h("p", { class: "notice" }, "This task was deleted. ", h("a", { href: "/" }, "Back to the board")));
    }),
  ];

  void (async () => {
    try {
      const [t, repos] = await Promise.all([api.get<Task>(`/tasks/${enc(id)}`), api.get<Repository[]>("/repositories")]);
      // The person may have left the page while it loaded: mount nothing then.
      if (disposed) return;
      task = t;
      const names = new Map(repos.map((r) => [r.id, r.name]));
      const repoName = (rid: string) => names.get(rid) ?? rid;
      drawHead(t);
      lifecycle = lifecyclePanel(ctx, t);
      const sessions = sessionsPanel(ctx, t.id);
      const changes = changesPanel(ctx, t.id, repoName);
      const env = environmentPanel(ctx, t, repoName);
      parts.push(sessions, changes, env, lifecycle);
      root.append(h("div", { class: "task-grid" }, h("div", { class: "col-main" }, sessions.el), h("div", { class: "col-side" }, changes.el, env.el, lifecycle.el)));
    } catch (e) {
      errors.show(e, task ? "could not load the task page" : `task ${id}`);
    }
  })();

  return () => {
    disposed = true;
    offs.forEach((off) => off());
    parts.forEach((p) => p.dispose());
  };
};
