/**
 * The sessions of a task: a list (state, agent, last error) to pick one from, the form that
 * starts a new session (agent from GET /agents, optional first prompt), and the picked
 * session's panel. Kept live by session.* events.
 */
import type { AgentProfile, Session } from "@grove/protocol";
import { api, enc } from "../api.js";
import { field, h, isNotOlder, render, when } from "../dom.js";
import { act, errorSlot } from "../errors.js";
import type { Ctx } from "../router.js";
import type { Component } from "./component.js";
import { sessionPanel } from "./session-panel.js";

export function sessionsPanel(ctx: Ctx, taskId: string): Component {
  const sessions = new Map<string, Session>();
  let selected: string | undefined;
  let panel: ReturnType<typeof sessionPanel> | undefined;
  const errors = errorSlot();
  const list = h("ul", { class: "session-list", "aria-label": "Sessions" });
  const panelBox = h("div", { class: "session-box" });

  const agent = h("select", { name: "agent" });
  const prompt = h("textarea", { name: "firstPrompt", rows: 3, placeholder: "say hello" });
  const start = h("button", { type: "submit" }, "Start session");
  const startForm = h("form", { class: "start-session", "aria-label": "Start a session" }, h("h3", null, "New session"), field("Agent", agent), field("First prompt (optional)", prompt), h("div", { class: "actions" }, start));
  const el = h("section", { class: "card sessions", "aria-label": "Sessions" }, h("h2", null, "Sessions"), errors.el, list, panelBox, startForm);

  const select = (id: string | undefined) => {
    if (id === selected && panel) return;
    panel?.dispose();
    panel = undefined;
    selected = id;
    const s = id ? sessions.get(id) : undefined;
    if (s) {
      panel = sessionPanel(ctx, s);
      render(panelBox, panel.el);
    } else panelBox.replaceChildren();
    drawList();
  };

  function drawList(): void {
    const ordered = [...sessions.values()].sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    render(
      list,
      ordered.length === 0
        ? h("li", { class: "empty" }, "No sessions yet.")
        : ordered.map((s, i) =>
            h(
              "li",
              { dataset: { sessionId: s.id, state: s.state } },
              h(
                "button",
                { type: "button", class: "session-item", "aria-pressed": String(s.id === selected), onclick: () => select(s.id) },
                h("span", null, `#${i + 1} ${s.agent}`),
                h("span", { class: `badge state-${s.state}` }, s.state),
                h("small", { class: "muted" }, when(s.createdAt)),
                s.lastError ? h("small", { class: "error" }, `${s.lastError.code}: ${s.lastError.message}`) : null,
              ),
            ),
          ),
    );
  }

  const upsert = (s: Session) => {
    if (!isNotOlder(sessions.get(s.id), s)) return;
    sessions.set(s.id, s);
    if (s.id === selected) panel?.update(s);
    drawList();
  };

  const load = async () => {
    try {
      const all = await api.get<Session[]>(`/tasks/${enc(taskId)}/sessions`);
      for (const s of all) upsert(s);
      if (!selected && all.length) select([...all].sort((a, b) => b.createdAt.localeCompare(a.createdAt))[0]?.id);
      drawList();
    } catch (e) {
      errors.show(e, "could not load sessions");
    }
  };

  startForm.addEventListener("submit", (e) => {
    e.preventDefault();
    const body: { agent?: string; prompt?: string } = {};
    if (agent.value) body.agent = agent.value;
    if (prompt.value.trim()) body.prompt = prompt.value;
    void act(start, errors, async () => {
      const s = await api.post<Session>(`/tasks/${enc(taskId)}/sessions`, body);
      prompt.value = "";
      upsert(s);
      select(s.id);
    });
  });

  const offs = [
    ctx.events.on("session.created", ({ session }) => session.taskId === taskId && upsert(session)),
    ctx.events.on("session.state_changed", ({ session }) => session.taskId === taskId && upsert(session)),
    ctx.events.on("session.deleted", ({ sessionId, taskId: t }) => {
      if (t !== taskId) return;
      sessions.delete(sessionId);
      if (selected === sessionId) select(undefined);
      drawList();
    }),
    ctx.events.on("reconnected", () => void load()),
  ];

  void api
    .get<AgentProfile[]>("/agents")
    .then((profiles) => render(agent, profiles.map((p) => h("option", { value: p.name }, p.builtIn ? p.name : `${p.name} (configured)`))))
    .catch((e: unknown) => errors.show(e, "could not load agents"));
  drawList();
  void load();
  return {
    el,
    dispose() {
      panel?.dispose();
      offs.forEach((off) => off());
    },
  };
}
