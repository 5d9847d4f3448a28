import { z } from "zod";

/** LIVE-4: what an inbox item is about. */
export const InboxKind = z.enum(["permission", "question", "turn_finished", "turn_failed", "stalled", "agent_crashed", "checks_failed", "conflict", "budget"]);
export type InboxKind = z.infer<typeof InboxKind>;

/**
 * LIVE-4: one thing that needs the person, kept by the server (durable, shared by every client).
 * `done` once the person dismissed it or its cause was resolved (a permission answered, the
 * session's next turn started, the checks passed).
 */
export const InboxItem = z.object({
  id: z.string(),
  kind: InboxKind,
  taskId: z.string(),
  sessionId: z.string().optional(),
  title: z.string(),
  /** More about it: the agent's reason, the question, the failing checks. */
  detail: z.string().optional(),
  state: z.enum(["open", "done"]),
  /** When a person first opened it (POST /inbox/:id/read); absent while unread. */
  readAt: z.string().optional(),
  createdAt: z.string(),
  resolvedAt: z.string().optional(),
  /** MCP-3 (kind `question`): the choices the agent offered; absent = a free answer. */
  choices: z.array(z.string()).optional(),
  /** MCP-3 (kind `question`, once answered): the person's answer. */
  answer: z.string().optional(),
});
export type InboxItem = z.infer<typeof InboxItem>;

/** MCP-3: `POST /tasks/:id/archive` — what to do with the task's open subtasks. */
export const ArchiveTaskBody = z.object({ children: z.enum(["archive", "keep"]).optional() }).strict();
export type ArchiveTaskBody = z.infer<typeof ArchiveTaskBody>;

/** MCP-3: `POST /inbox/:id/answer`, the person's answer to an agent's question. */
export const AnswerQuestionBody = z.object({ answer: z.string().trim().min(1).max(10_000) }).strict();
export type AnswerQuestionBody = z.infer<typeof AnswerQuestionBody>;

export const InboxQuery = z.object({ state: z.enum(["open", "all"]).default("open") }).strict();
