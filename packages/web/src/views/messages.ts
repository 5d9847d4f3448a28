/**
 * One message of a session, rendered by role: the person's prompt, the agent's answer, its
 * thoughts (muted), tool calls (with their status from `data.status`), plans and system notes.
 */
import type { Message } from "@grove/protocol";
import { h } from "../dom.js";

const ROLE_LABEL: Record<Message["role"], string> = { user: "You", agent: "Agent", thought: "Thinking", tool: "Tool", plan: "Plan", system: "System" };

function toolStatus(m: Message): string | undefined {
  const data = m.data as { status?: unknown } | null | undefined;
  return typeof data?.status === "string" ? data.status : undefined;
}

export function renderMessage(m: Message): HTMLElement {
  const status = m.role === "tool" ? toolStatus(m) : undefined;
  return h(
    "li",
    { class: `msg role-${m.role}`, dataset: { messageId: m.id, role: m.role, ...(status ? { status } : {}) } },
    h(
      "div",
      { class: "msg-head" },
      h("span", { class: "msg-role" }, ROLE_LABEL[m.role] ?? m.role),
      status ? h("span", { class: `badge tool-${status}` }, status) : null,
      h("time", { datetime: m.createdAt }, new Date(m.createdAt).toLocaleTimeString()),
    ),
    h("div", { class: "msg-text" }, m.text),
  );
}

/** Keeps a `<ol>` of messages in creation order, replacing a message in place when it changes. */
export class MessageList {
  readonly el = h("ol", { class: "messages", "aria-label": "Messages", "aria-live": "polite" });
  private readonly nodes = new Map<string, { m: Message; node: HTMLElement }>();

  upsert(m: Message): void {
    const nearBottom = this.el.scrollHeight - this.el.scrollTop - this.el.clientHeight < 40;
    const node = renderMessage(m);
    const prev = this.nodes.get(m.id);
    if (prev) prev.node.replaceWith(node);
    else {
      // Events and the initial GET can interleave: insert by creation time, not arrival.
      const after = [...this.nodes.values()].find((x) => x.m.createdAt > m.createdAt);
      if (after) this.el.insertBefore(node, after.node);
      else this.el.append(node);
    }
    this.nodes.set(m.id, { m, node });
    if (nearBottom) this.el.scrollTop = this.el.scrollHeight;
  }

  has(id: string): boolean {
    return this.nodes.has(id);
  }

  get size(): number {
    return this.nodes.size;
  }
}
