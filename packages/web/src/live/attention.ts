/**
 * Attention: what an agent needs the person for. The items live on the server (LIVE-4, the
 * durable inbox: `GET /inbox`, `inbox.updated` frames), so every tab shows the same list and a
 * reload, a new tab or a server restart keeps it. This module mirrors the open items into a
 * page store (the header badge; the tab title shows the count), marks items done on the server
 * when the person dismisses them, and — once the person opted in — shows a browser notification
 * for each item that arrives while the page is open. An item clears when its cause is resolved
 * (the session prompted again, the question answered) or the person dismisses it — never because
 * a page was looked at: items about the task the person is looking at (a turn end, a failure) are
 * marked read (`POST /inbox/:id/read`), as are a task's items when its page opens. Read items
 * stay listed but leave the count; a permission or a question counts until it is answered.
 */
import type { InboxItem, InboxKind } from "@grove/protocol";
import { call } from "../api/client.js";
import type { EventStream } from "./events.js";
import { store } from "./store.js";

export type AttentionKind = InboxKind;

export interface AttentionItem {
  id: string;
  kind: AttentionKind;
  taskId: string;
  sessionId?: string;
  text: string;
  at: string;
  /** MCP-3: an agent's question offers these answers (absent = a free answer). */
  choices?: string[];
  /** MCP-3: the agent's question alone (the text leads with the task's title). */
  question?: string;
  /** Seen by a person already (`readAt`): still open, no longer counted. */
  read: boolean;
}

/** What still needs the person: unread items, and every permission or question until answered. */
export function needsYou(items: readonly AttentionItem[]): AttentionItem[] {
  return items.filter((i) => !i.read || asks(i.kind));
}

const asks = (kind: AttentionKind) => kind === "permission" || kind === "question";

export const attention = store<AttentionItem[]>([]);
const open = new Map<string, Notification>();

/** The task whose page is open (set by the task page), to skip what the person is watching. */
export let watchingTask: string | null = null;
export function setWatchingTask(id: string | null): void {
  watchingTask = id;
}

const OPT_IN = "grove.notifications";
/** Whether the person turned browser notifications on (and the browser allows them). */
export function notificationsEnabled(): boolean {
  return typeof Notification !== "undefined" && Notification.permission === "granted" && localStorage.getItem(OPT_IN) === "on";
}

/** Asks the browser for permission; the answer is kept as the person's choice. */
export async function enableNotifications(): Promise<boolean> {
  if (typeof Notification === "undefined") return false;
  const p = Notification.permission === "granted" ? "granted" : await Notification.requestPermission();
  localStorage.setItem(OPT_IN, p === "granted" ? "on" : "off");
  return p === "granted";
}

export function disableNotifications(): void {
  localStorage.setItem(OPT_IN, "off");
}

const LABEL: Record<AttentionKind, string> = {
  permission: "Permission requested",
  question: "Question",
  turn_finished: "Turn finished",
  turn_failed: "Turn failed",
  stalled: "Turn stalled",
  agent_crashed: "Agent crashed",
  checks_failed: "PR checks failed",
  conflict: "Conflict",
  budget: "Budget reached",
};

function toAttention(i: InboxItem): AttentionItem {
  return {
    id: i.id,
    kind: i.kind,
    taskId: i.taskId,
    ...(i.sessionId ? { sessionId: i.sessionId } : {}),
    text: i.detail && !i.title.endsWith(i.detail) ? `${i.title}: ${i.detail}` : i.title,
    at: i.createdAt,
    ...(i.choices ? { choices: i.choices } : {}),
    ...(i.kind === "question" && i.detail ? { question: i.detail } : {}),
    read: i.readAt !== undefined,
  };
}

const visible = () => document.visibilityState === "visible";
/** Seen now, unread until now: the person looks at its task (a question or permission still waits). */
const seenNow = (i: InboxItem) => !asks(i.kind) && i.readAt === undefined && watchingTask === i.taskId && visible();

function markDone(id: string): void {
  void call("markInboxItemDone", { params: { id } }).catch((e: unknown) => console.warn("inbox: could not mark an item done", e));
}

function markRead(id: string): void {
  void call("markInboxItemRead", { params: { id } }).catch((e: unknown) => console.warn("inbox: could not mark an item read", e));
}

/**
 * The person opened a task's page: its unread items (not the questions and permissions, which
 * wait for an answer) are read now — here at once, on the server for every other tab.
 */
export function markTaskRead(taskId: string): void {
  const unread = attention.get().filter((i) => i.taskId === taskId && !i.read && !asks(i.kind));
  if (unread.length === 0) return;
  for (const i of unread) {
    closeNotification(i.id);
    markRead(i.id);
  }
  const ids = new Set(unread.map((i) => i.id));
  attention.set((cur) => cur.map((i) => (ids.has(i.id) ? { ...i, read: true } : i)));
}

function closeNotification(id: string): void {
  open.get(id)?.close();
  open.delete(id);
}

function notify(item: AttentionItem): void {
  if (!notificationsEnabled()) return;
  const n = new Notification(`Grove: ${LABEL[item.kind]}`, { body: item.text, tag: item.id });
  n.onclick = () => {
    window.focus();
    history.pushState(null, "", `/tasks/${item.taskId}`);
    dispatchEvent(new PopStateEvent("popstate"));
  };
  open.set(item.id, n);
}

/** The person dismissed items: gone here at once, done on the server (every other tab follows). */
export function dismiss(pred: (i: AttentionItem) => boolean): void {
  const gone = attention.get().filter(pred);
  if (gone.length === 0) return;
  for (const i of gone) {
    closeNotification(i.id);
    markDone(i.id);
  }
  attention.set((cur) => cur.filter((i) => !pred(i)));
}

/**
 * MCP-3: the person answers an agent's question; the server closes the item (every tab
 * follows by its frame) and the agent gets the answer. Rejects with the server's error.
 */
export async function answerQuestion(id: string, answer: string): Promise<void> {
  await call("answerInboxQuestion", { params: { id }, body: { answer } });
  closeNotification(id);
  attention.set((cur) => cur.filter((i) => i.id !== id));
}

/** One server item's change: an open one is shown (new ones notify), a done one leaves. */
function apply(item: InboxItem, fresh: boolean): void {
  if (item.state === "done") {
    closeNotification(item.id);
    attention.set((cur) => cur.filter((i) => i.id !== item.id));
    return;
  }
  const seen = seenNow(item);
  if (seen) markRead(item.id);
  const known = attention.get().some((i) => i.id === item.id);
  const shown = { ...toAttention(item), read: item.readAt !== undefined || seen };
  attention.set((cur) => [shown, ...cur.filter((i) => i.id !== item.id)].sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0)));
  if (fresh && !known && !shown.read) notify(shown);
}

/** The server's open items (on connect and after every reconnect: frames sent meanwhile are lost). */
async function load(): Promise<void> {
  const items = await call("listInbox", { query: { state: "open" } });
  const ids = new Set(items.map((i) => i.id));
  for (const gone of attention.get().filter((i) => !ids.has(i.id))) closeNotification(gone.id);
  attention.set(
    items.map((i) => {
      const seen = seenNow(i);
      if (seen) markRead(i.id);
      return { ...toAttention(i), read: i.readAt !== undefined || seen };
    }),
  );
}

/** Mirrors the server's inbox from the event stream; returns the unsubscribe function. */
export function feedAttention(stream: EventStream): () => void {
  const reload = () => void load().catch((e: unknown) => console.warn("inbox: could not load", e));
  const offs = [stream.on("connected", reload), stream.on("reconnected", reload), stream.on("inbox.updated", ({ item }) => apply(item, true))];
  return () => offs.forEach((o) => o());
}

export { LABEL as ATTENTION_LABEL };
