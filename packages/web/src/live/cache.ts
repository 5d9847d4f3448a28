/**
 * The data cache (React Query) fed by the event stream: every frame updates or invalidates
 * the cached reads it affects, so views render from one place and never poll. Records carry
 * `updatedAt`; an older answer never overwrites a newer event.
 */
import type { CleanupJob, Message, Runner, Session, Task, TaskSummary } from "@grove/protocol";
import type { QueryClient } from "@tanstack/react-query";
import { keys } from "../api/keys.js";
import { dropSummary, putRunnerState, putSummary } from "./board-cache.js";
import type { EventStream } from "./events.js";

const newer = <T extends { updatedAt: string }>(cur: T | undefined, next: T) => cur === undefined || next.updatedAt >= cur.updatedAt;

/** Replaces (or adds) the record with the same id, keeping the list's order by `order`. */
export function upsert<T extends { id: string }>(list: T[] | undefined, item: T, order?: (a: T, b: T) => number): T[] | undefined {
  if (!list) return list;
  const i = list.findIndex((x) => x.id === item.id);
  const next = i >= 0 ? list.map((x, j) => (j === i ? item : x)) : [...list, item];
  return order && i < 0 ? next.sort(order) : next;
}

const byCreated = (a: { createdAt: string }, b: { createdAt: string }) => a.createdAt.localeCompare(b.createdAt);

/** Inserts or replaces a message, keeping creation order (events and the first GET interleave). */
export function upsertMessage(list: Message[] | undefined, m: Message): Message[] | undefined {
  if (!list) return list;
  const i = list.findIndex((x) => x.id === m.id);
  if (i >= 0) return list.map((x, j) => (j === i ? m : x));
  const last = list[list.length - 1];
  if (!last || last.createdAt <= m.createdAt) return [...list, m];
  return [...list, m].sort(byCreated);
}

/**
 * A task page's record; the board's columns follow `task.summary` frames instead. `task.*`
 * frames and the answers of PATCH/unarchive carry the task row only: the runner fields and the
 * progress `GET /tasks/:id` added are kept (a `report_progress` frame carries a newer one).
 */
export function putTask(qc: QueryClient, task: Task): void {
  const cur = qc.getQueryData<Task>(keys.task(task.id));
  if (!newer(cur, task)) return;
  // An unarchived task has no worktrees until its next session. What Changes and the environment
  // said before the archive is dropped before the task shows as live, whatever brought the news
  // first (the unarchive's answer, a `task.updated` frame, another tab), so nothing (the terminal)
  // acts on worktrees that are not there.
  if (cur?.archivedAt && !task.archivedAt) {
    void qc.resetQueries({ queryKey: keys.changes(task.id) });
    void qc.resetQueries({ queryKey: keys.environment(task.id) });
  }
  qc.setQueryData(
    keys.task(task.id),
    cur ? { runnerId: cur.runnerId, runnerState: cur.runnerState, runnerLabels: cur.runnerLabels, progress: cur.progress, ...task } : task,
  );
}

/** MCP-3: a subtask's fresh summary goes into its parent page's list (when that list is read). */
function putSubtask(qc: QueryClient, summary: TaskSummary): void {
  if (!summary.parentId) return;
  qc.setQueryData<TaskSummary[]>(keys.subtasks(summary.parentId), (list) => upsert(list, summary, byCreated));
}

/** MCP-3: a subtask in the trash leaves its parent page's list. */
function dropSubtask(qc: QueryClient, taskId: string): void {
  for (const [key, list] of qc.getQueriesData<TaskSummary[]>({ queryKey: ["subtasks"] })) {
    if (list?.some((s) => s.id === taskId))
      qc.setQueryData<TaskSummary[]>(
        key,
        list.filter((s) => s.id !== taskId),
      );
  }
}

/** A runner went offline or came back: every cached task it holds shows it, no list re-read. */
function putRunner(qc: QueryClient, runner: Runner): void {
  for (const [key, t] of qc.getQueriesData<Task>({ queryKey: ["task"] })) {
    if (t && t.runnerId === runner.id && t.runnerState !== runner.state) qc.setQueryData<Task>(key, { ...t, runnerState: runner.state });
  }
  putRunnerState(qc, runner.id, runner.state);
}

function putSession(qc: QueryClient, s: Session): void {
  qc.setQueryData<Session[]>(keys.sessions(s.taskId), (list) => {
    const cur = list?.find((x) => x.id === s.id);
    return cur && !newer(cur, s) ? list : upsert(list, s, byCreated);
  });
}

function putJob(qc: QueryClient, job: CleanupJob): void {
  qc.setQueryData<CleanupJob[]>(keys.cleanupJobs(job.taskId), (list) => upsert(list, job));
}

/** Frames of sessions whose messages are being read right now (see mergeEarly). */
const early = new Map<string, Message[]>();

/**
 * The first read of a session's messages merged with frames that arrived while it ran: a
 * frame is newer than the answer (a tool call updated in place keeps its latest status).
 */
export async function mergeEarly(sessionId: string, load: () => Promise<Message[]>): Promise<Message[]> {
  early.set(sessionId, []);
  const list = await load().catch((e: unknown) => {
    early.delete(sessionId);
    throw e;
  });
  const held = early.get(sessionId) ?? [];
  early.delete(sessionId);
  return held.reduce<Message[]>((acc, m) => upsertMessage(acc, m) ?? acc, list);
}

/** Connects the stream to the cache; returns the unsubscribe function. */
export function feedCache(qc: QueryClient, stream: EventStream): () => void {
  const timers = new Map<string, ReturnType<typeof setTimeout>>();
  // Changes come in bursts while an agent writes: re-read at most every 300 ms per task.
  const soon = (key: readonly unknown[], ms = 300) => {
    const id = JSON.stringify(key);
    if (timers.has(id)) return;
    timers.set(
      id,
      setTimeout(() => {
        timers.delete(id);
        void qc.invalidateQueries({ queryKey: key });
      }, ms),
    );
  };
  const taskFiles = (taskId: string) => {
    soon(keys.changes(taskId));
    soon(["diff", taskId]);
    soon(keys.environment(taskId), 200);
    // A changed line makes its comment `outdated` (computed by the server on read).
    soon(keys.comments(taskId));
  };
  const offs = [
    // WEB-30: a task created, moved, archived or deleted changes the board's counts: re-read them (at most every 300 ms).
    stream.on("task.created", ({ task }) => (putTask(qc, task), soon(["taskCounts"]))),
    stream.on("task.updated", ({ task }) => (putTask(qc, task), soon(["taskCounts"]))),
    stream.on("task.summary", ({ summary }) => (putSummary(qc, summary), putSubtask(qc, summary))),
    stream.on("runner.updated", ({ runner }) => putRunner(qc, runner)),
    stream.on("task.deleted", ({ taskId }) => {
      for (const k of [keys.changes(taskId), keys.environment(taskId), ["diff", taskId], keys.cleanupJobs(taskId)]) qc.removeQueries({ queryKey: k });
      dropSummary(qc, taskId);
      dropSubtask(qc, taskId);
      soon(["taskCounts"]);
    }),
    stream.on("session.created", ({ session }) => putSession(qc, session)),
    // AG-2: the agent's mode, model, slash commands or plan changed.
    stream.on("session.updated", ({ session }) => putSession(qc, session)),
    stream.on("session.state_changed", ({ session }) => {
      putSession(qc, session);
      soon(keys.permissions(session.id), 100);
      taskFiles(session.taskId);
    }),
    // USE-1: a session's tokens, context and cost (the task page's ring and cost).
    stream.on("usage.updated", ({ sessionId, taskId, usage }) =>
      qc.setQueryData<Session[]>(keys.sessions(taskId), (list) => list?.map((s) => (s.id === sessionId ? { ...s, usage } : s))),
    ),
    stream.on("session.deleted", ({ sessionId, taskId }) => {
      qc.setQueryData<Session[]>(keys.sessions(taskId), (list) => list?.filter((s) => s.id !== sessionId));
      qc.removeQueries({ queryKey: keys.messages(sessionId) });
    }),
    stream.on("session.message", ({ sessionId, message }) => {
      const held = early.get(sessionId);
      // A read is on its way: keep the frame so that read cannot lose it.
      if (held) early.set(sessionId, [...held.filter((m) => m.id !== message.id), message]);
      qc.setQueryData<Message[]>(keys.messages(sessionId), (list) => upsertMessage(list, message));
      if ((message.data as { permissionRequest?: unknown } | null | undefined)?.permissionRequest) soon(keys.permissions(sessionId), 50);
    }),
    stream.on("changes.updated", ({ taskId }) => taskFiles(taskId)),
    stream.on("environment.updated", ({ taskId }) => taskFiles(taskId)),
    stream.on("cleanup_job.updated", ({ job }) => {
      putJob(qc, job);
      // A delete takes the task with it: re-reading its files would only ask for what is gone.
      if (job.trigger !== "delete") taskFiles(job.taskId);
    }),
    stream.on("comment.created", (d: { comment?: { taskId: string } }) => d.comment && soon(keys.comments(d.comment.taskId), 50)),
    stream.on("comment.updated", (d: { comment?: { taskId: string } }) => d.comment && soon(keys.comments(d.comment.taskId), 50)),
    stream.on("comment.deleted", (d: { taskId?: string }) => d.taskId && soon(keys.comments(d.taskId), 50)),
    stream.on("pull_request.updated", (d: { taskId?: string; pullRequest?: { taskId?: string } }) => {
      const taskId = d.taskId ?? d.pullRequest?.taskId;
      if (taskId) soon(keys.pullRequests(taskId), 50);
    }),
    // Frames sent while the socket was down are lost: every cached read is re-done.
    stream.on("reconnected", () => void qc.invalidateQueries()),
  ];
  return () => {
    offs.forEach((off) => off());
    timers.forEach((t) => clearTimeout(t));
  };
}
