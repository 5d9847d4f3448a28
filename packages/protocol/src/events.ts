import type { Changes, CleanupJob, Message, Session, Task } from "./schemas.js";
import type { Comment, PullRequest } from "./review.js";
import type { TaskSummary } from "./lists.js";
import type { Runner } from "./runners.js";
import type { InboxItem } from "./inbox.js";
import type { SessionUsage } from "./usage.js";
import type { WorkflowRunFrame } from "./workflows.js";

/** Event frames on `GET /api/v1/events`: `{type, data, at}`. */
export interface EventMap {
  "task.created": { task: Task };
  "task.updated": { task: Task };
  "task.deleted": { taskId: string };
  "session.created": { session: Session };
  "session.state_changed": { session: Session; from: Session["state"] | null };
  "session.deleted": { sessionId: string; taskId: string };
  "session.message": { sessionId: string; taskId: string; message: Message };
  /** AG-2: the session's agent reported new modes, models, commands or a plan. */
  "session.updated": { session: Session };
  "changes.updated": { taskId: string; repositoryId: string; changes?: Changes };
  "cleanup_job.updated": { job: CleanupJob };
  "environment.updated": { taskId: string; environmentId: string; status: string };
  /** RR-1: progress of a remote repository's clone (`phase` as git prints it, e.g. "Receiving objects"). */
  "repository.clone_progress": { repositoryId: string; url: string; phase: string; percent: number | null };
  /** Review comments and pull requests. */
  "comment.created": { comment: Comment };
  "comment.updated": { comment: Comment };
  "comment.deleted": { commentId: string; taskId: string };
  "pull_request.updated": { taskId: string; pullRequest: PullRequest };
  /**
   * The board's row of a task after anything it shows changed (task fields, a session's state,
   * a permission question, the diff stat): the page upserts it and never refetches the list.
   * Follows the frame that caused it; bursts are coalesced into one frame per task.
   */
  "task.summary": { summary: TaskSummary };
  /**
   * A runner registered, its live load changed, or it stopped gracefully; also sent by
   * each runner to its own clients when it sees another runner's heartbeat go stale or return
   * (pages set `runnerState` of the tasks with that `runnerId`).
   */
  "runner.updated": { runner: Runner };
  /** LIVE-4: an inbox item was created, read, or done (dismissed or its cause resolved). */
  "inbox.updated": { item: InboxItem };
  /** USE-1: a session's usage changed (tokens, context, cost). */
  "usage.updated": { sessionId: string; taskId: string; usage: SessionUsage };
  /** WF-2: an automated action of a task's workflow was queued, ran, failed or was cancelled. */
  "workflow.run": WorkflowRunFrame;
}

export type EventType = keyof EventMap;

export interface EventFrame<T extends EventType = EventType> {
  type: T;
  data: EventMap[T];
  at: string;
}

export const EVENT_TYPES: readonly EventType[] = [
  "task.created",
  "task.updated",
  "task.deleted",
  "session.created",
  "session.state_changed",
  "session.deleted",
  "session.message",
  "session.updated",
  "changes.updated",
  "cleanup_job.updated",
  "environment.updated",
  "repository.clone_progress",
  "comment.created",
  "comment.updated",
  "comment.deleted",
  "pull_request.updated",
  "task.summary",
  "runner.updated",
  "inbox.updated",
  "usage.updated",
  "workflow.run",
];
