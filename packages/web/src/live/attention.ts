/**
 * Attention: what an agent needs the person for. Raised by events — a turn finished, a
 * permission requested, a session failed, a pull request's checks failed — kept in an inbox
 * (the header badge; the tab title shows the count) and, once the person opted in, shown as
 * browser notifications. Turn ends and failures of the task the person is looking at are not
 * raised (they see them); a permission question always is, until it is answered.
 */
import type { Session } from "@grove/protocol";
import type { EventStream } from "./events.js";
import { store } from "./store.js";

export type AttentionKind = "turn_finished" | "turn_failed" | "permission_requested" | "session_failed" | "checks_failed";

export interface AttentionItem {
  id: string;
  kind: AttentionKind;
  taskId: string;
  sessionId?: string;
  text: string;
  at: string;
}

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
  turn_finished: "Turn finished",
  turn_failed: "Turn failed",
  permission_requested: "Permission requested",
  session_failed: "Session failed",
  checks_failed: "PR checks failed",
};

function raise(item: AttentionItem): void {
  attention.set((cur) => [item, ...cur.filter((i) => i.id !== item.id)]);
  if (!notificationsEnabled()) return;
  const n = new Notification(`Grove: ${LABEL[item.kind]}`, { body: item.text, tag: item.id });
  n.onclick = () => {
    window.focus();
    history.pushState(null, "", `/tasks/${item.taskId}`);
    dispatchEvent(new PopStateEvent("popstate"));
  };
  open.set(item.id, n);
}

/** Removes items (and closes their notifications). */
export function dismiss(pred: (i: AttentionItem) => boolean): void {
  const gone = attention.get().filter(pred);
  if (gone.length === 0) return;
  for (const i of gone) {
    open.get(i.id)?.close();
    open.delete(i.id);
  }
  attention.set((cur) => cur.filter((i) => !pred(i)));
}

const visible = () => document.visibilityState === "visible";

/** Raises items from the event stream; returns the unsubscribe function. */
export function feedAttention(stream: EventStream, titleOf: (taskId: string) => string): () => void {
  const offs = [
    stream.on("session.state_changed", ({ session, from }: { session: Session; from: Session["state"] | null }) => {
      // The question is gone once the turn moved on or ended.
      if (session.state !== "running") dismiss((i) => i.kind === "permission_requested" && i.sessionId === session.id);
      const watched = watchingTask === session.taskId && visible();
      if (session.state === "failed" && from !== "failed" && !watched) {
        raise({ id: `failed:${session.id}:${session.updatedAt}`, kind: "session_failed", taskId: session.taskId, sessionId: session.id, text: `${titleOf(session.taskId)}: ${session.lastError?.message ?? "the agent failed"}`, at: session.updatedAt });
      }
      const failedTurn = session.lastTurn && ["refused", "failed", "max_tokens", "stalled"].includes(session.lastTurn.outcome) ? session.lastTurn : undefined;
      if (session.state === "waiting_for_input" && from === "running" && failedTurn && !watched) {
        // LIVE-2: a refused or failed turn is never announced as finished.
        raise({ id: `turn:${session.id}:${session.updatedAt}`, kind: "turn_failed", taskId: session.taskId, sessionId: session.id, text: `${titleOf(session.taskId)}: ${failedTurn.outcome}${failedTurn.reason ? `: ${failedTurn.reason}` : ""}`, at: session.updatedAt });
      } else if (session.state === "waiting_for_input" && from === "running" && !watched) {
        raise({ id: `turn:${session.id}:${session.updatedAt}`, kind: "turn_finished", taskId: session.taskId, sessionId: session.id, text: `${titleOf(session.taskId)}: the agent is waiting for you`, at: session.updatedAt });
      }
    }),
    stream.on("session.message", ({ sessionId, taskId, message }) => {
      const ask = (message.data as { permissionRequest?: { requestId: string; title: string } } | null | undefined)?.permissionRequest;
      if (!ask) return;
      raise({ id: `perm:${ask.requestId}`, kind: "permission_requested", taskId, sessionId, text: `${titleOf(taskId)}: ${ask.title}`, at: message.createdAt });
    }),
    stream.on("pull_request.updated", (d: { taskId?: string; pullRequest?: { checks?: string; number?: number; updatedAt?: string; taskId?: string } }) => {
      const pr = d.pullRequest;
      const taskId = d.taskId ?? pr?.taskId;
      if (!pr || !taskId || pr.checks !== "failure") return;
      raise({ id: `checks:${taskId}:${pr.number}:${pr.updatedAt}`, kind: "checks_failed", taskId, text: `${titleOf(taskId)}: checks failed on PR #${pr.number}`, at: pr.updatedAt ?? new Date().toISOString() });
    }),
    stream.on("task.deleted", ({ taskId }) => dismiss((i) => i.taskId === taskId)),
  ];
  return () => offs.forEach((o) => o());
}

export { LABEL as ATTENTION_LABEL };
