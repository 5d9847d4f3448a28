import { randomBytes, timingSafeEqual } from "node:crypto";
import type { McpToolNames } from "./tool-catalog.js";

/** What a valid capability token stands for. */
export interface McpGrant {
  sessionId: string;
  taskId: string;
  /** MCP-2: the profile's scope; `board` may also list every task (read-only). */
  scope: "task" | "board";
  /** MCP-1: the profile's renames (tools served under another name). */
  toolNames?: McpToolNames;
}

/**
 * MCP-1: per-session capability tokens. Minted when a session's agent starts, bound to that
 * session and its task, revoked when the agent exits (the session ended, was stopped or
 * restarted) or the task is archived. Held in memory only: a restarted server mints new ones
 * for the agents it starts, and a token never reaches the database, a log or an API answer.
 */
export class McpTokens {
  private readonly bySession = new Map<string, { token: Buffer; taskId: string; scope: "task" | "board"; toolNames?: McpToolNames }>();

  /** A fresh token for the session (a previous one of it stops working). */
  mint(sessionId: string, taskId: string, scope: "task" | "board" = "task", toolNames?: McpToolNames): string {
    const token = randomBytes(32);
    this.bySession.set(sessionId, { token, taskId, scope, ...(toolNames ? { toolNames } : {}) });
    return token.toString("base64url");
  }

  /** The grant of `token` when it is the live token of `sessionId`; undefined otherwise. */
  check(sessionId: string, token: string): McpGrant | undefined {
    const live = this.bySession.get(sessionId);
    if (!live) return undefined;
    const given = Buffer.from(token, "base64url");
    if (given.length !== live.token.length || !timingSafeEqual(given, live.token)) return undefined;
    return { sessionId, taskId: live.taskId, scope: live.scope, ...(live.toolNames ? { toolNames: live.toolNames } : {}) };
  }

  /** Revokes the session's token, but only `token` when given (a newer token of a restart stays). */
  revoke(sessionId: string, token?: string): void {
    if (token !== undefined && this.check(sessionId, token) === undefined) return;
    this.bySession.delete(sessionId);
  }

  /** Revokes every token of the task's sessions (archive). */
  revokeTask(taskId: string): void {
    for (const [sessionId, live] of this.bySession) if (live.taskId === taskId) this.bySession.delete(sessionId);
  }
}
