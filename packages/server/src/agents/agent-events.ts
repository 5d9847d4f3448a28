import type { SessionUpdate } from "@agentclientprotocol/sdk";

/**
 * What Grove takes from an agent's `session/update` stream (SES-5): message and thought chunks,
 * tool calls and their updates, plans; anything else passes through as `other` with its raw
 * update so nothing the SDK accepted is lost.
 */
export type AgentEvent =
  | { kind: "message_chunk"; role: "agent" | "thought" | "user"; text: string; messageId?: string }
  | { kind: "tool_call"; toolCallId: string; title: string; status: string; toolKind?: string; raw: unknown }
  | { kind: "tool_call_update"; toolCallId: string; status?: string; title?: string; raw: unknown }
  | { kind: "plan"; entries: { content: string; status: string; priority: string }[]; raw: unknown }
  | { kind: "other"; sessionUpdate: string; raw: unknown };

/** A permission request waiting for the person (profile policy `ask`). */
export interface PermissionAsk {
  /** Grove's id for this ask (unique). */
  requestId: string;
  title: string;
  options: { optionId: string; name: string; kind: string }[];
}

const ROLES = { agent_message_chunk: "agent", agent_thought_chunk: "thought", user_message_chunk: "user" } as const;

/** Maps one ACP session update to an {@link AgentEvent}. Non-text content becomes `[<type>]`. */
export function toAgentEvent(update: SessionUpdate): AgentEvent {
  switch (update.sessionUpdate) {
    case "agent_message_chunk":
    case "agent_thought_chunk":
    case "user_message_chunk": {
      const c = update.content;
      const text = c.type === "text" ? c.text : `[${c.type}]`;
      return { kind: "message_chunk", role: ROLES[update.sessionUpdate], text, ...(update.messageId ? { messageId: update.messageId } : {}) };
    }
    case "tool_call":
      return {
        kind: "tool_call",
        toolCallId: update.toolCallId,
        title: update.title,
        status: update.status ?? "pending",
        ...(update.kind ? { toolKind: update.kind } : {}),
        raw: update,
      };
    case "tool_call_update":
      return {
        kind: "tool_call_update",
        toolCallId: update.toolCallId,
        ...(update.status ? { status: update.status } : {}),
        ...(update.title ? { title: update.title } : {}),
        raw: update,
      };
    case "plan":
      return {
        kind: "plan",
        entries: update.entries.map((e) => ({ content: e.content, status: e.status, priority: e.priority })),
        raw: update,
      };
    default:
      return { kind: "other", sessionUpdate: update.sessionUpdate, raw: update };
  }
}
