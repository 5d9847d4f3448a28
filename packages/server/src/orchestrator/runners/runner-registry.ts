import type { Runner, RunnerState } from "@grove/protocol";
import { runnerState, toRunner, type RunnerRecord } from "../../domain/runner.js";
import type { Deps, RunnerSettings } from "../context.js";
import { credentialKeyIdOf } from "../refresh/remote-context.js";

export type { RunnerSettings } from "../context.js";

/** The settings of one local runner without limits (tests and single-runner set-ups). */
export const LOCAL_RUNNER_DEFAULTS: RunnerSettings = { host: "localhost", url: undefined, labels: [], maxAgents: null, heartbeatMs: 5000, version: "0.0.0" };

/** The ports (orchestrator/context.ts) RunnerRegistry uses. */
export type RunnerRegistryPorts = Pick<Deps, "store" | "agents" | "bus" | "log" | "home" | "runnerId" | "now">;

/**
 * This process's row in the runners registry. `start` registers it once the server
 * listens; a timer heartbeats every `heartbeatMs` with the live load. Other runners judge it
 * offline after 3 missed beats; a graceful `stop` marks it offline at once.
 */
export class RunnerRegistry {
  private timer: NodeJS.Timeout | undefined;
  private record: RunnerRecord | undefined;
  private beating: Promise<void> = Promise.resolve();
  /** The other runners' states as this runner last judged them (see watchOthers). */
  private readonly seen = new Map<string, RunnerState>();

  constructor(
    private readonly deps: RunnerRegistryPorts,
    readonly settings: RunnerSettings,
  ) {}

  /** Registers (or re-registers after a restart) and starts the heartbeat. */
  async start(listenUrl: string): Promise<void> {
    const now = this.deps.now();
    const s = this.settings;
    this.record = {
      id: this.deps.runnerId,
      host: s.host,
      url: s.url ?? listenUrl,
      labels: s.labels,
      maxAgents: s.maxAgents,
      liveAgents: this.deps.agents.liveCount(),
      version: s.version,
      heartbeatMs: s.heartbeatMs,
      startedAt: now,
      lastSeenAt: now,
      stoppedAt: null,
      // Placement reads it: credentials sealed under another key cannot be opened here.
      credentialKeyId: credentialKeyIdOf(this.deps),
    };
    await this.deps.store.runners.register(this.record);
    this.publish(this.record);
    this.timer = setInterval(() => {
      this.beating = this.beat().catch((err: unknown) => this.deps.log.warn({ err }, "runner heartbeat failed"));
    }, s.heartbeatMs);
    this.timer.unref();
  }

  private async beat(): Promise<void> {
    const rec = this.record;
    if (!rec || !this.timer) return;
    const now = this.deps.now();
    const live = this.deps.agents.liveCount();
    const changed = live !== rec.liveAgents;
    rec.lastSeenAt = now;
    rec.liveAgents = live;
    // The row vanished or was marked stopped (another process stopping with our id): announce again.
    if (!(await this.deps.store.runners.heartbeat(rec.id, now, live))) await this.deps.store.runners.register(rec);
    if (changed) this.publish(rec);
    await this.watchOthers();
  }

  /**
   * A runner that dies cannot announce it, and one whose row is written again comes back:
   * at each heartbeat this runner reads the registry once and tells its own clients
   * (`runner.updated`, not relayed: every runner does the same) about each other runner whose
   * state changed since the last beat, so pages patch their tasks' `runnerState` without
   * re-reading lists. A first reading (of the registry, or of a runner) only records the state:
   * lists were read with it, and a registering runner announces itself. Public so that a test
   * can take that first reading at a moment it knows, instead of hoping a heartbeat came first.
   */
  async watchOthers(): Promise<void> {
    const rows = await this.deps.store.runners.list();
    const now = Date.now();
    const present = new Set<string>();
    for (const r of rows) {
      if (r.id === this.deps.runnerId) continue;
      present.add(r.id);
      const state = runnerState(r, now);
      const before = this.seen.get(r.id);
      this.seen.set(r.id, state);
      // A runner seen for the first time announced itself when it registered.
      if (before !== undefined && before !== state) this.deps.bus.publishLocal("runner.updated", { runner: toRunner(r, now) });
    }
    for (const id of this.seen.keys()) if (!present.has(id)) this.seen.delete(id);
  }

  /** Graceful stop: no more heartbeats; the row shows offline at once. */
  async stop(): Promise<void> {
    if (!this.timer || !this.record) return;
    clearInterval(this.timer);
    this.timer = undefined;
    await this.beating;
    const now = this.deps.now();
    await this.deps.store.runners.stop(this.record.id, now);
    this.publish({ ...this.record, stoppedAt: now, liveAgents: 0 });
  }

  /** `GET /runners`. */
  async list(): Promise<Runner[]> {
    const now = Date.now();
    return (await this.deps.store.runners.list()).map((r) => toRunner(r, now));
  }

  /**
   * The state of a runner: this one is online while it serves; another is judged by its row.
   * A runner id without a row (an environment made before the registry existed, by another
   * process) counts as offline: its files cannot be reached from here.
   */
  async stateOf(runnerId: string): Promise<RunnerState> {
    if (runnerId === this.deps.runnerId) return "online";
    const r = await this.deps.store.runners.get(runnerId);
    return r ? runnerState(r, Date.now()) : "offline";
  }

  private publish(r: RunnerRecord): void {
    this.deps.bus.publish("runner.updated", { runner: toRunner(r, Date.now()) });
  }
}
