import { z } from "zod";
import { Message, MessagesQuery, pageOf, PermissionAsk, PromptBody, Session, WorkspaceInfo } from "../index.js";
import { operation } from "./operation.js";

/** `POST /sessions/:id/permissions/:requestId`: the option picked, or null to reject. */
export const PermissionAnswerBody = z.object({ optionId: z.string().min(1).nullable() }).strict();

/** Agent sessions: prompts, messages, permissions. */
export const SESSION_OPERATIONS = {
  getSession: operation({ method: "get", path: "/sessions/{id}", summary: "One session", response: Session }),
  listSessionMessages: operation({
    method: "get",
    path: "/sessions/{id}/messages",
    summary: "Messages, oldest first; with ?limit=N[&before=C] the newest page before the cursor (oldest first within it) and nextCursor towards older ones",
    query: MessagesQuery,
    queryDocs: {
      limit: "page size: answers {items, nextCursor} instead of a plain array",
      before: "nextCursor of the previous (newer) page",
      cursor: "the same as before",
    },
    response: z.union([z.array(Message), pageOf(Message)]),
    errors: ["invalid_request", "not_found"],
  }),
  getSessionWorkspace: operation({
    method: "get",
    path: "/sessions/{id}/workspace",
    summary: "The session's projected workspace (ENV-5)",
    response: WorkspaceInfo,
    errors: ["workspace_missing"],
    forward: { scope: "session" },
  }),
  promptSession: operation({
    method: "post",
    path: "/sessions/{id}/prompt",
    summary:
      "Send a prompt: text, review comments composed into one prompt (marked sent), or both; with queue: true a prompt waits behind a running turn (WEB-37)",
    body: PromptBody,
    arbitraryText: ["prompt"],
    response: Session,
    status: 202,
    errors: ["budget_exceeded", "session_busy", "session_not_resumable", "comment_resolved", "invalid_request", "runner_offline", "no_runner_available"],
    forward: { scope: "session" },
  }),
  dropQueuedPrompt: operation({
    method: "delete",
    path: "/sessions/{id}/queued/{queuedId}",
    summary: "WEB-37: take a queued follow-up back before its turn",
    response: Session,
    errors: ["not_found"],
  }),
  cancelSessionTurn: operation({
    method: "post",
    path: "/sessions/{id}/cancel",
    summary: "Cancel the running turn",
    response: Session,
    status: 202,
    forward: { scope: "session" },
  }),
  resumeSession: operation({
    method: "post",
    path: "/sessions/{id}/resume",
    summary: "Resume (relaunch) the session's agent",
    response: Session,
    status: 202,
    errors: ["session_running", "session_not_resumable", "runner_offline", "no_runner_available"],
    forward: { scope: "session" },
  }),
  restartSession: operation({
    method: "post",
    path: "/sessions/{id}/restart",
    summary: "Restart the session's agent: stop it (its whole process group) and resume with session/load in the same worktree (LIVE-3, a stalled turn)",
    response: Session,
    status: 202,
    errors: ["session_busy", "session_not_resumable", "runner_offline", "no_runner_available"],
    forward: { scope: "session" },
  }),
  deleteSession: operation({
    method: "delete",
    path: "/sessions/{id}",
    summary: "Delete a session (never the workspace, SES-7)",
    status: 204,
    errors: ["session_running"],
    forward: { scope: "session" },
  }),
  listPermissionRequests: operation({
    method: "get",
    path: "/sessions/{id}/permissions",
    summary: "Pending permission requests (policy ask)",
    response: z.array(PermissionAsk),
    forward: { scope: "session" },
  }),
  answerPermissionRequest: operation({
    method: "post",
    path: "/sessions/{id}/permissions/{requestId}",
    summary: "Answer a permission request",
    body: PermissionAnswerBody,
    status: 204,
    forward: { scope: "session" },
    personOnly: true,
  }),
};
