import type { SessionUpdate } from "@agentclientprotocol/sdk";
import type { AgentCommand } from "@grove/protocol";
import type { AgentConfigOption } from "../domain/agent-state.js";

/** The fields of a tool call an agent may send in `tool_call` and again in `tool_call_update` (AG-1). */
export interface ToolCallFields {
  title?: string;
  status?: string;
  toolKind?: string;
  /** The tool's input (`rawInput`). */
  input?: unknown;
  content?: unknown[];
  locations?: { path: string; line?: number | null }[];
}

/**
 * What Grove takes from an agent's `session/update` stream (SES-5): message and thought chunks,
 * tool calls and their updates, plans, mode/config/command reports; anything else passes through
 * as `other` with its raw update so nothing the SDK accepted is lost.
 */
export type AgentEvent =
  | { kind: "message_chunk"; role: "agent" | "thought" | "user"; text: string; messageId?: string }
  | ({ kind: "tool_call"; toolCallId: string; title: string; status: string; raw: unknown } & Omit<ToolCallFields, "title" | "status">)
  | ({ kind: "tool_call_update"; toolCallId: string; raw: unknown } & ToolCallFields)
  | { kind: "plan"; entries: { content: string; status: string; priority: string }[]; raw: unknown }
  | { kind: "mode"; currentModeId: string }
  | { kind: "config"; configOptions: AgentConfigOption[] }
  | { kind: "commands"; commands: AgentCommand[] }
  /** USE-1: ACP `usage_update`: tokens in the context, the context window, the session's cumulative cost. */
  | { kind: "usage"; used: number; size: number; cost?: { amount: number; currency: string } }
  | { kind: "other"; sessionUpdate: string; raw: unknown };

/** A permission request waiting for the person: the protocol's shape, which the page reads. */
export type { PermissionAsk } from "@grove/protocol";

const ROLES = { agent_message_chunk: "agent", agent_thought_chunk: "thought", user_message_chunk: "user" } as const;

type ToolUpdate = Omit<Extract<SessionUpdate, { sessionUpdate: "tool_call_update" }>, "sessionUpdate">;

/** The optional tool call fields present in an update (absent ones stay absent: an update merges). */
function toolFields(u: ToolUpdate): ToolCallFields {
  return {
    ...(u.title ? { title: u.title } : {}),
    ...(u.status ? { status: u.status } : {}),
    ...(u.kind ? { toolKind: u.kind } : {}),
    ...(u.rawInput !== undefined && u.rawInput !== null ? { input: u.rawInput } : {}),
    ...(u.content ? { content: u.content } : {}),
    ...(u.locations ? { locations: u.locations.map((l) => ({ path: l.path, ...(l.line != null ? { line: l.line } : {}) })) } : {}),
  };
}

/** `select` config options in a flat form (grouped options are flattened). */
export function toConfigOptions(options: readonly unknown[] | null | undefined): AgentConfigOption[] {
  const out: AgentConfigOption[] = [];
  for (const o of (options ?? []) as { id: string; name: string; type: string; category?: string | null; currentValue?: unknown; options?: unknown[] }[]) {
    if (o.type !== "select" || typeof o.currentValue !== "string") continue;
    const flat: { value: string; name: string; description?: string }[] = [];
    for (const x of (o.options ?? []) as {
      value?: string;
      name: string;
      description?: string | null;
      options?: { value: string; name: string; description?: string | null }[];
    }[]) {
      for (const v of x.options ?? [x])
        if (typeof v.value === "string") flat.push({ value: v.value, name: v.name, ...(v.description ? { description: v.description } : {}) });
    }
    out.push({ id: o.id, name: o.name, ...(o.category ? { category: o.category } : {}), currentValue: o.currentValue, options: flat });
  }
  return out;
}

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
      return { ...toolFields(update), kind: "tool_call", toolCallId: update.toolCallId, title: update.title, status: update.status ?? "pending", raw: update };
    case "tool_call_update":
      return { ...toolFields(update), kind: "tool_call_update", toolCallId: update.toolCallId, raw: update };
    case "plan":
      return {
        kind: "plan",
        entries: update.entries.map((e) => ({ content: e.content, status: e.status, priority: e.priority })),
        raw: update,
      };
    case "current_mode_update":
      return { kind: "mode", currentModeId: update.currentModeId };
    case "config_option_update":
      return { kind: "config", configOptions: toConfigOptions(update.configOptions) };
    case "available_commands_update":
      return {
        kind: "commands",
        commands: update.availableCommands.map((c) => ({ name: c.name, description: c.description, ...(c.input?.hint ? { hint: c.input.hint } : {}) })),
      };
    case "usage_update":
      return {
        kind: "usage",
        used: update.used,
        size: update.size,
        ...(update.cost && Number.isFinite(update.cost.amount) ? { cost: { amount: update.cost.amount, currency: update.cost.currency } } : {}),
      };
    default:
      return { kind: "other", sessionUpdate: update.sessionUpdate, raw: update };
  }
}

/** USE-1: a turn's token usage as the agent answered `session/prompt` (ACP `PromptResponse.usage`, unstable). */
export interface TurnUsage {
  tokensIn: number;
  tokensOut: number;
  cacheRead: number;
  cacheWrite: number;
}

/** The turn's tokens of a prompt response (`usage`, else `_meta.quota.token_count`), when it carries sane counts; undefined otherwise. */
export function turnUsageOf(res: unknown): TurnUsage | undefined {
  const r = res as { usage?: Record<string, unknown> | null; _meta?: { quota?: { token_count?: Record<string, unknown> } } | null } | null;
  const n = (x: unknown) => (typeof x === "number" && Number.isFinite(x) && x >= 0 ? Math.round(x) : 0);
  const u = r?.usage;
  // Agents without the unstable field (Gemini CLI) report the turn's tokens as `_meta.quota.token_count`.
  const q = r?._meta?.quota?.token_count;
  const t =
    u && typeof u === "object"
      ? { tokensIn: n(u.inputTokens), tokensOut: n(u.outputTokens), cacheRead: n(u.cachedReadTokens), cacheWrite: n(u.cachedWriteTokens) }
      : q && typeof q === "object"
        ? { tokensIn: n(q.input_tokens), tokensOut: n(q.output_tokens), cacheRead: 0, cacheWrite: 0 }
        : undefined;
  return t && t.tokensIn + t.tokensOut + t.cacheRead + t.cacheWrite > 0 ? t : undefined;
}

/** MCP-3: an agent's ACP form elicitation: what it asks and the form it wants filled. */
export interface ElicitationAsk {
  message: string;
  /** ACP `requestedSchema`: an object schema of primitive fields (checked by domain/elicitation.ts). */
  requestedSchema: unknown;
  /** The agent's tool call the question belongs to, when it said. */
  toolCallId?: string;
}

/** MCP-3: the answer to an elicitation, as ACP's `CreateElicitationResponse`. */
export type ElicitationAnswer =
  | { action: "accept"; content: Record<string, string | number | boolean | string[]> }
  | { action: "decline" }
  | { action: "cancel" };
