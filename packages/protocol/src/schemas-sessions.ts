import { z } from "zod";
import { SessionUsage } from "./usage.js";

/** Sessions, their turns and messages of the HTTP API. Fields may be added; none may be renamed (clients depend on the names). */

export const SessionState = z.enum(["created", "starting", "running", "waiting_for_input", "completed", "failed", "cancelled"]);
export type SessionState = z.infer<typeof SessionState>;
export const MessageRole = z.enum(["user", "agent", "thought", "tool", "plan", "system"]);
export type MessageRole = z.infer<typeof MessageRole>;

export const LastError = z.object({
  code: z.string(),
  message: z.string(),
  repositoryId: z.string().optional(),
  /** What fixes it (e.g. for `workspace_reuse_unsafe`: move the foreign directory, then restore). */
  action: z.string().optional(),
  /** AG-3: the last few KB of the agent's stderr when an agent failed to start or authenticate. */
  stderr: z.string().optional(),
  at: z.string(),
});
export type LastError = z.infer<typeof LastError>;

/** AG-2: the modes an agent reported over ACP (`session/new`, `session/load`, `current_mode_update`). */
export const AgentModes = z.object({
  currentModeId: z.string(),
  availableModes: z.array(z.object({ id: z.string(), name: z.string(), description: z.string().optional() })),
});
export type AgentModes = z.infer<typeof AgentModes>;

/** AG-2: the models an agent offers (its `model` config option). */
export const AgentModels = z.object({
  currentModelId: z.string(),
  availableModels: z.array(z.object({ modelId: z.string(), name: z.string(), description: z.string().optional() })),
});
export type AgentModels = z.infer<typeof AgentModels>;

/** AG-2: a slash command the agent offers (`available_commands_update`). */
export const AgentCommand = z.object({ name: z.string(), description: z.string(), hint: z.string().optional() });
export type AgentCommand = z.infer<typeof AgentCommand>;

/** AG-2: one entry of the agent's latest plan. */
export const PlanEntry = z.object({ content: z.string(), status: z.string(), priority: z.string() });
export type PlanEntry = z.infer<typeof PlanEntry>;

/**
 * LIVE-2: how a turn ended. `completed` is the agent's own `end_turn`; `refused`, `max_tokens`
 * and `failed` (an agent error, a crash, a turn-request limit) are failures; `cancelled` is the
 * person's cancel; `interrupted` a server stop mid-turn; `stalled` no progress past the limit.
 */
export const TurnOutcome = z.enum(["completed", "refused", "failed", "cancelled", "interrupted", "max_tokens", "stalled"]);
export type TurnOutcome = z.infer<typeof TurnOutcome>;

/** LIVE-2: the outcome of a session's latest finished turn, with the agent's reason. */
export const LastTurn = z.object({
  outcome: TurnOutcome,
  /** What the agent said or the error that ended it (absent for a plain `completed`). */
  reason: z.string().optional(),
  /** The ACP `stopReason` when the agent answered the prompt. */
  stopReason: z.string().optional(),
  at: z.string(),
});
export type LastTurn = z.infer<typeof LastTurn>;

/** WEB-37: a follow-up a person queued while a turn ran; sent when the turn ends. */
export const QueuedPrompt = z.object({ id: z.string(), text: z.string(), createdAt: z.string() });
export type QueuedPrompt = z.infer<typeof QueuedPrompt>;

export const Session = z.object({
  id: z.string(),
  taskId: z.string(),
  agent: z.string(),
  state: SessionState,
  taskEnvironmentId: z.string().nullable(),
  lastError: LastError.nullable(),
  /** LIVE-2: null until a turn ended. */
  lastTurn: LastTurn.nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  /** AG-2, once the agent reported them. */
  modes: AgentModes.optional(),
  models: AgentModels.optional(),
  commands: z.array(AgentCommand).optional(),
  plan: z.array(PlanEntry).optional(),
  /** SBX-3: `confined` = the agent runs in the OS sandbox; `unconfined` is shown as a badge. */
  sandbox: z.enum(["confined", "unconfined"]),
  /** SBX-2: connections of the agent the egress proxy refused (each is a `blocked: host:port` note). */
  blockedConnections: z.number().int().nonnegative(),
  /** USE-1: tokens, context and cost so far; absent until the agent reported any. */
  usage: SessionUsage.optional(),
  /** WEB-37: follow-ups queued while a turn ran, oldest first; absent when none. */
  queued: z.array(QueuedPrompt).optional(),
});
export type Session = z.infer<typeof Session>;

/**
 * A tool call message's `data.status`: ACP's `pending`, `in_progress`, `completed`, `failed`,
 * and Grove's own `cancelled` (the person's cancel) and `interrupted` (a server stop mid-turn).
 */
export const ToolStatus = z.enum(["pending", "in_progress", "completed", "failed", "cancelled", "interrupted"]);
export type ToolStatus = z.infer<typeof ToolStatus>;

/**
 * Where each tool status stands: pending, running, then closed. A status never goes back
 * (the recorder closes a call once; a follower skips an older copy of a call).
 */
export const TOOL_STATUS_STAGE: Record<ToolStatus, 0 | 1 | 2> = {
  pending: 0,
  in_progress: 1,
  completed: 2,
  failed: 2,
  cancelled: 2,
  interrupted: 2,
};

/** The stage of a status read from a message's data; an unknown one (a newer agent's) counts as running. */
export function toolStatusStage(status: unknown): 0 | 1 | 2 {
  return (TOOL_STATUS_STAGE as Record<string, 0 | 1 | 2>)[String(status ?? "pending")] ?? 1;
}

export const Message = z.object({
  id: z.string(),
  sessionId: z.string(),
  role: MessageRole,
  text: z.string(),
  data: z.unknown().optional(),
  createdAt: z.string(),
});
export type Message = z.infer<typeof Message>;

/** WEB-7.1: a permission request waiting for the person (`GET /sessions/:id/permissions`, profile policy `ask`). */
export const PermissionAsk = z.object({
  /** Grove's id for this ask (unique). */
  requestId: z.string(),
  title: z.string(),
  /** The tool call the agent asks about, and its kind (edit, execute, …), when it says. */
  toolCallId: z.string().optional(),
  toolKind: z.string().optional(),
  options: z.array(z.object({ optionId: z.string(), name: z.string(), kind: z.string() })),
});
export type PermissionAsk = z.infer<typeof PermissionAsk>;
