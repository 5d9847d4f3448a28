/**
 * One session: its state and last error, the live message stream, pending permission
 * requests with their options as buttons, the prompt box, and cancel / resume / delete.
 */
import type { Message, Session } from "@grove/protocol";
import { api, enc } from "../api.js";
import { debounce, field, h, render } from "../dom.js";
import { act, errorSlot } from "../errors.js";
import type { Ctx } from "../router.js";
import type { Component } from "./component.js";
import { MessageList } from "./messages.js";

/** `GET /sessions/:id/permissions` answer (policy "ask"). */
interface PermissionAsk {
  requestId: string;
  title: string;
  options: { optionId: string; name: string; kind: string }[];
}

const ACTIVE: readonly Session["state"][] = ["starting", "running"];

export function sessionPanel(ctx: Ctx, initial: Session): Component & { update(s: Session): void } {
  let session = initial;
  const id = session.id;
  const errors = errorSlot();
  const head = h("div", { class: "session-head" });
  const permissions = h("div", { class: "permissions", "aria-live": "assertive" });
  const messages = new MessageList();
  const prompt = h("textarea", { name: "prompt", rows: 3, placeholder: "Ask the agent… (Ctrl+Enter sends)" });
  const send = h("button", { type: "submit" }, "Send");
  const form = h("form", { class: "prompt-form", "aria-label": "Send a prompt" }, field("Prompt", prompt), h("div", { class: "actions" }, send));
  const el = h("section", { class: "session-panel", dataset: { sessionId: id }, "aria-label": `Session ${id}` }, head, errors.el, permissions, messages.el, form);

  const cancel = h("button", { type: "button", class: "secondary", onclick: () => void act(cancel, errors, () => api.post(`/sessions/${enc(id)}/cancel`)).then(drawHead) }, "Cancel turn");
  const resume = h("button", { type: "button", class: "secondary", onclick: () => void act(resume, errors, () => api.post(`/sessions/${enc(id)}/resume`)).then(drawHead) }, "Resume");
  const remove = h("button", { type: "button", class: "danger", onclick: () => void act(remove, errors, () => api.del(`/sessions/${enc(id)}`)).then(drawHead) }, "Delete session");

  // Buttons are re-enabled by act() when a request settles; drawHead re-applies the state rules.
  function drawHead(): void {
    const s = session;
    // Cancel only means something during a turn; resume and delete are refused during one.
    cancel.disabled = !ACTIVE.includes(s.state);
    resume.disabled = ACTIVE.includes(s.state);
    remove.disabled = ACTIVE.includes(s.state);
    render(
      head,
      h(
        "div",
        { class: "session-title" },
        h("h3", null, `${s.agent} session`),
        h("span", { class: `badge session-state state-${s.state}` }, s.state),
        h("code", { class: "muted" }, s.id),
      ),
      s.lastError ? h("p", { class: "error last-error", role: "alert" }, `${s.lastError.code}: ${s.lastError.message}`) : null,
      h("div", { class: "actions" }, cancel, resume, remove),
    );
  }

  const answer = (ask: PermissionAsk, optionId: string | null, button: HTMLButtonElement) =>
    void act(button, errors, async () => {
      await api.post(`/sessions/${enc(id)}/permissions/${enc(ask.requestId)}`, { optionId });
      await loadPermissions();
    });

  async function loadPermissions(): Promise<void> {
    try {
      const asks = await api.get<PermissionAsk[]>(`/sessions/${enc(id)}/permissions`);
      render(
        permissions,
        asks.map((ask) => {
          const buttons: HTMLButtonElement[] = ask.options.map((o) => {
            const b: HTMLButtonElement = h("button", { type: "button", class: o.kind.startsWith("reject") ? "secondary" : "", dataset: { optionId: o.optionId }, onclick: () => answer(ask, o.optionId, b) }, o.name);
            return b;
          });
          const dismiss: HTMLButtonElement = h("button", { type: "button", class: "secondary", onclick: () => answer(ask, null, dismiss) }, "Dismiss");
          return h("div", { class: "permission", role: "group", "aria-label": "Permission request", dataset: { requestId: ask.requestId } }, h("p", null, h("strong", null, "Permission requested: "), ask.title), h("div", { class: "actions" }, buttons, dismiss));
        }),
      );
    } catch (e) {
      errors.show(e, "could not load permission requests");
    }
  }
  const refreshPermissions = debounce(() => void loadPermissions(), 100);

  // First load: a message an event already delivered is newer than the list. After a
  // reconnect the list is the newer one (events were missed), so everything is replaced.
  const loadMessages = async (replace = false) => {
    try {
      for (const m of await api.get<Message[]>(`/sessions/${enc(id)}/messages`)) if (replace || !messages.has(m.id)) messages.upsert(m);
      messages.el.scrollTop = messages.el.scrollHeight;
    } catch (e) {
      errors.show(e, "could not load messages");
    }
  };

  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const text = prompt.value;
    if (!text.trim()) return;
    void act(send, errors, async () => {
      await api.post(`/sessions/${enc(id)}/prompt`, { prompt: text });
      prompt.value = "";
    });
  });
  prompt.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) form.requestSubmit();
  });

  const offs = [
    ctx.events.on("session.message", (d) => {
      if (d.sessionId !== id) return;
      messages.upsert(d.message);
      if (d.message.role === "system" && (d.message.data as { permissionRequest?: unknown } | null)?.permissionRequest) refreshPermissions();
    }),
    ctx.events.on("reconnected", () => {
      void loadMessages(true);
      refreshPermissions();
    }),
  ];
  drawHead();
  void loadMessages();
  void loadPermissions();
  return {
    el,
    update(s) {
      session = s;
      drawHead();
      refreshPermissions();
    },
    dispose() {
      refreshPermissions.cancel();
      offs.forEach((off) => off());
    },
  };
}
