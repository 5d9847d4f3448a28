import type { Store } from "../store/store.js";
import type { GitRunner } from "../git/runner.js";
import type { WorktreeManager } from "../git/worktrees.js";
import type { AgentRuntime } from "../agents/runtime.js";
import type { AgentProfileConfig } from "../agents/profiles.js";
import type { EventBus } from "../domain/event-bus.js";
import type { LaunchRegistry } from "./launch-registry.js";
import type { ProviderRegistry } from "../providers/registry.js";
import type { GitIdentity } from "../git/identity.js";
import type { McpTokens } from "../mcp/tokens.js";
import type { UsageSettings } from "../domain/usage.js";
import type { Tuning } from "../config.js";

/** Logging seam (pino in production); the orchestrator never writes to the console. */
export interface Log {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/**
 * Every port the orchestrator composes, built once in app.ts. Only the facade
 * (orchestrator.ts) holds the whole of it; each use case declares the ports it uses,
 * `Pick<Deps, "store" | "bus">` or a named `…Ports` type beside it, so a port it did not
 * declare is a type error (test/architecture/narrow-ports.test.ts keeps it so).
 */
export interface Deps {
  store: Store;
  git: GitRunner;
  worktrees: WorktreeManager;
  agents: AgentRuntime;
  profiles: AgentProfileConfig[];
  bus: EventBus;
  log: Log;
  home: string;
  runnerId: string;
  /** Prompt/resume/restore launches in flight (cleanup waits for them). */
  launches: LaunchRegistry;
  now(): string;
  /** Providers and timeouts of remote repositories (RR-1, RR-8); defaults when absent. */
  remote?: RemoteServices;
  /** How this runner registers (labels, capacity, heartbeat); defaults when absent. */
  runner?: RunnerSettings;
  /** GROVE_GIT_AUTHOR_NAME/EMAIL: the person's commits where git has no identity configured. */
  gitIdentity?: GitIdentity | undefined;
  /** LIVE-5: GROVE_TRASH_RETENTION_MS, how long a deleted task stays restorable (default 7 days). */
  trashRetentionMs?: number;
  /** SBX-1..3: what the agent sandbox needs from the server; process.env and no ports when absent. */
  sandbox?: SandboxSettings;
  /** MCP-1: Grove's MCP server for agents (the socket and the shim); no MCP server when absent. */
  mcp?: McpSettings;
  /** USE-1/USE-2: the daily cap and the price table; no cap and the shipped prices when absent. */
  usage?: UsageSettings;
  /** CFG-1: the use cases' configured values (config.ts); DEFAULT_TUNING when absent. */
  tuning?: Tuning;
  /** WT-10: prepared worktrees per repository and base; absent (or size 0) = every start checks out in full. */
  pool?: WorktreePoolPort;
}

/**
 * What starting or prompting a session needs (SES-4..6, SBX-1..3, MCP-1, WT-10): the store and
 * the bus, git and the worktrees (and their pool), the agent runtime with its profiles, the
 * sandbox and MCP settings, the launches in flight and the configured values. The session use
 * cases, and the review ones that send a prompt, take this; one that needs more adds it with `&`.
 */
export type SessionPorts = Pick<
  Deps,
  | "store"
  | "git"
  | "worktrees"
  | "agents"
  | "profiles"
  | "bus"
  | "log"
  | "home"
  | "runnerId"
  | "launches"
  | "now"
  | "remote"
  | "sandbox"
  | "mcp"
  | "tuning"
  | "pool"
>;

/** WT-10: what a launch and the lifecycle need of the worktree pool (`worktrees/pool.ts`). */
export interface WorktreePoolPort {
  readonly enabled: boolean;
  /** A pooled worktree made into the slot's new worktree, or null (none ready): create as usual. */
  claim(c: PoolClaim): Promise<{ createdBranch: boolean } | null>;
  /** Marks a start in progress until the returned release is called: fills wait meanwhile. */
  hold(): () => void;
  /** Tops one pool up in the background. */
  refill(repositoryId: string, repoPath: string, baseBranch: string): void;
  /** Resolves once no fill is running. */
  idle(): Promise<void>;
  /** Start-up: every pooled worktree back in the pool or one task's, then refilled. */
  recover(repositories: readonly { id: string; path: string }[]): Promise<void>;
  close(): Promise<void>;
}

/** One claim of a pooled worktree for a task slot. */
export interface PoolClaim {
  repoPath: string;
  /** The pool's key with the base branch. */
  repositoryId: string;
  baseBranch: string;
  taskId: string;
  worktreePath: string;
  branch: string;
  /** The refreshed start point (WT-3, RR-4/5): the pooled checkout is moved there, never used as it is. */
  startPoint: string;
}

/** MCP-1: what a launch needs to hand its agent Grove's MCP server (built in app.ts). */
export interface McpSettings {
  tokens: McpTokens;
  /** The gateway's Unix socket on this host. */
  socketPath: string;
  /** How the agent starts the stdio shim (`node …/bin/grove-mcp.mjs`). */
  shim: { command: string; args: string[] };
}

/** SBX-1..3: the server's side of the agent sandbox (built in app.ts). */
export interface SandboxSettings {
  /** SBX-3: the bubblewrap binary (`Config.bwrap`: an absolute path or a name looked up in `env.PATH`). */
  bwrap: string;
  /** The server's environment: `PATH`, and `HOME` (whose credentials are hidden). */
  env: NodeJS.ProcessEnv;
  /** Grove's own listening ports: the egress proxy never connects to them (SBX-2). */
  ports(): number[];
}

/** What remote repositories need beyond the core deps; built in app.ts (RR-1, RR-8). */
export interface RemoteServices {
  /** Built-in providers plus GROVE_PROVIDER_PLUGINS. */
  providers: ProviderRegistry;
  /** Timeout of one clone or refresh (GROVE_REFRESH_TIMEOUT_MS, default 120 s). */
  refreshTimeoutMs: number;
  /** Timeout of a registration's clone (GROVE_CLONE_TIMEOUT_MS, default 30 min: large repositories). */
  cloneTimeoutMs: number;
}

/** How this runner registers in the runners registry (runners/runner-registry.ts). */
export interface RunnerSettings {
  host: string;
  /** `GROVE_RUNNER_URL`; undefined = the listen URL handed to `start`. */
  url: string | undefined;
  labels: string[];
  maxAgents: number | null;
  heartbeatMs: number;
  version: string;
}
