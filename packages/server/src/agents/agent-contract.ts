import type * as acp from "@agentclientprotocol/sdk";
import type { AgentConfigOption } from "../domain/agent-state.js";
import type { AgentEvent, PermissionAsk, SessionSetup } from "./acp-connection.js";
import type { AgentProfileConfig } from "./profiles.js";
import type { ElicitationAnswer, ElicitationAsk, TurnUsage } from "./agent-events.js";

export type { ElicitationAnswer, ElicitationAsk } from "./agent-events.js";

// What the runtime promises its owner: the callbacks it makes, what a start needs and the live
// handle it returns. Kept apart from runtime.ts so the handle's class and the runtime that builds
// it both depend on this file, not on each other.

/** What a running agent reports to its owner (the orchestrator). */
export interface AgentCallbacks {
  /** Called synchronously in arrival order (SDK gotcha 2); replayed history is never reported. */
  onEvent(e: AgentEvent): void;
  /** Used only when the profile's policy is `ask`; "cancelled" when nobody answers. */
  onPermission(ask: PermissionAsk): Promise<{ optionId: string } | "cancelled">;
  /**
   * MCP-3: the agent's form elicitation (`elicitation/create`), answered by the person; without
   * it Grove advertises no elicitation capability and declines one.
   */
  onElicitation?(ask: ElicitationAsk, signal: AbortSignal): Promise<ElicitationAnswer>;
  /** Once, when the process exits for any reason (crash, stop, its own decision); `pid` and `startTime` name it. */
  onExit(info: { code: number | null; signal: string | null; duringTurn: boolean; pid: number; startTime: string }): void;
}

/** An ACP stdio MCP server entry (`mcpServers` of `session/new` and `session/load`). */
export interface McpServerEntry {
  name: string;
  command: string;
  args: string[];
  env: { name: string; value: string }[];
}

/** Everything needed to start one agent for one Grove session. */
export interface StartAgentInput {
  /** Grove's session id: the key of the live handle. */
  sessionId: string;
  profile: AgentProfileConfig;
  /** The session's workspace path; the same on resume (SES-6). */
  cwd: string;
  /** Variables set (or, as undefined, removed) on top of the profile's env: the sandbox's (SBX-1). */
  extraEnv?: Record<string, string | undefined>;
  /** Raw ACP frames, one `{at, dir: "in"|"out", msg}` JSON object per line. */
  logFile: string;
  /** MCP-1: the MCP servers `session/new` / `session/load` carry (Grove's own `grove`). */
  mcpServers?: McpServerEntry[];
  /** `session/load` this ACP session when the agent advertises it; else (or when it fails) `session/new`. */
  resume?: { acpSessionId: string };
  /** AG-2: what a person chose earlier (mode, model), re-applied after `session/new`/`session/load`. */
  chosen?: { modeId?: string; modelId?: string };
  /** AG-3: the agent's `initialize` answer (cached for `GET /agents`). */
  onInitialize?(init: acp.InitializeResponse): void;
  callbacks: AgentCallbacks;
}

/** A live agent process with its ACP session. */
export interface AgentHandle {
  readonly pid: number;
  /** From /proc/<pid>/stat field 22: with the pid, identifies the process across server restarts. */
  readonly startTime: string;
  readonly acpSessionId: string;
  /** True when `session/load` of `resume.acpSessionId` succeeded. */
  readonly resumed: boolean;
  /** AG-2: modes and config options as of the end of the start (after the preferred mode was set). */
  readonly setup: SessionSetup;
  /** AG-2: `session/set_mode`. */
  setMode(modeId: string): Promise<void>;
  /** AG-2: `session/set_config_option`; the agent's config options after it. */
  setConfigOption(configId: string, value: string): Promise<AgentConfigOption[]>;
  /** A prompt turn is running. */
  readonly busy: boolean;
  /**
   * One turn; each text (one, or several) is one content block. Rejects AppError("agent_crashed") if the process
   * dies (or is stopped) mid-turn, "session_busy" if a turn runs, "agent_auth_required" if the
   * agent wants credentials.
   */
  /** `usage`: the turn's tokens, when the agent reported them (USE-1). */
  prompt(text: string | readonly string[]): Promise<{ stopReason: string; usage?: TurnUsage }>;
  /** `session/cancel`; pending permission asks are answered "cancelled". */
  cancel(): Promise<void>;
  /** Close the connection and stdin, SIGTERM the process group, SIGKILL it after graceMs (default 3000); resolves when it is gone. */
  stop(opts?: { graceMs?: number }): Promise<void>;
}
