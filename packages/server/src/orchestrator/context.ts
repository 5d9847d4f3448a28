import type { Store } from "../store/store.js";
import type { GitRunner } from "../git/runner.js";
import type { WorktreeManager } from "../git/worktrees.js";
import type { AgentRuntime } from "../agents/runtime.js";
import type { AgentProfileConfig } from "../agents/profiles.js";
import type { EventBus } from "../domain/event-bus.js";
import type { LaunchRegistry } from "./launch-registry.js";
import type { RemoteServices } from "./remote-context.js";
import type { RunnerSettings } from "./runner-registry.js";

/** Logging seam (pino in production); the orchestrator never writes to the console. */
export interface Log {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** Everything the orchestrator composes. Built once in app.ts. */
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
  /** Issue 15: how this runner registers (labels, capacity, heartbeat); defaults when absent. */
  runner?: RunnerSettings;
}
