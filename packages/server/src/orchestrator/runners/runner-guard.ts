import type { RunnerState } from "@grove/protocol";
import { AppError } from "../../domain/errors.js";
import type { Deps } from "../context.js";
import type { RunnerRegistry } from "./runner-registry.js";

/**
 * First slice: operations on a task run only where its files are. Until forwarding
 * exists, a runner refuses work on a task whose environment lives on another runner that is
 * offline (`runner_offline`), and refuses launches beyond its own `GROVE_RUNNER_MAX_AGENTS`
 * (`no_runner_available`). Nothing is reserved, written or deleted before these checks.
 */
export class RunnerGuard {
  /** Launches admitted but whose agent is not counted by the runtime yet. */
  private pending = 0;

  constructor(
    private readonly deps: Pick<Deps, "store" | "agents" | "runnerId">,
    private readonly registry: RunnerRegistry,
  ) {}

  /** `{runnerId, runnerState}` of a task's environment (both null before one exists). */
  async taskRunner(taskId: string): Promise<{ runnerId: string | null; runnerState: RunnerState | null }> {
    const env = await this.deps.store.getEnvironmentByTask(taskId);
    if (!env) return { runnerId: null, runnerState: null };
    return { runnerId: env.runnerId, runnerState: await this.registry.stateOf(env.runnerId) };
  }

  /** Refuses with `409 runner_offline` when the task's environment is on another runner that is offline. */
  async assertTaskReachable(taskId: string): Promise<void> {
    const env = await this.deps.store.getEnvironmentByTask(taskId);
    if (!env || env.runnerId === this.deps.runnerId) return;
    if ((await this.registry.stateOf(env.runnerId)) === "offline") {
      throw new AppError("runner_offline", `task ${taskId} lives on runner ${env.runnerId}, which is offline; nothing was done. Start that runner again.`, {
        taskId,
        runnerId: env.runnerId,
      });
    }
  }

  /**
   * `POST /tasks/:id/sessions` with `runnerId`, once the request is on this runner (the API's
   * forwarding seam sends it to the named runner first): this runner is accepted; an
   * unregistered id is `runner_unknown`; another offline runner is `runner_offline`; another
   * online one means the environment is already placed here or the request was sent to the
   * wrong runner: `no_runner_available` (`placed_elsewhere`), never a silent move.
   */
  async assertRequestedRunner(runnerId: string | undefined): Promise<void> {
    if (runnerId === undefined || runnerId === this.deps.runnerId) return;
    const row = await this.deps.store.runners.get(runnerId);
    if (!row) throw new AppError("runner_unknown", `no runner ${runnerId} is registered (see GET /runners)`, { field: "runnerId", runnerId });
    if ((await this.registry.stateOf(runnerId)) === "offline") {
      throw new AppError("runner_offline", `runner ${runnerId} is offline`, { runnerId });
    }
    throw new AppError("no_runner_available", `the task's environment is on runner ${this.deps.runnerId}; it is never moved to ${runnerId}`, {
      reason: "placed_elsewhere",
      runnerId: this.deps.runnerId,
    });
  }

  /**
   * Runs a launch within this runner's capacity: with `maxAgents` set, a launch that would
   * exceed it is refused with `409 no_runner_available` before anything is written. The slot
   * counts from the check until `launch` settles (then the runtime counts the agent), so two
   * concurrent launches cannot both take the last one.
   */
  async withSlot<T>(launch: () => Promise<T>): Promise<T> {
    const max = this.registry.settings.maxAgents;
    if (max === null) return launch();
    const live = this.deps.agents.liveCount();
    if (live + this.pending >= max) {
      throw new AppError(
        "no_runner_available",
        `runner ${this.deps.runnerId} already runs ${live} of ${max} agents (GROVE_RUNNER_MAX_AGENTS); stop a session or try another runner`,
        {
          reason: "capacity",
          runnerId: this.deps.runnerId,
          maxAgents: max,
          liveAgents: live,
        },
      );
    }
    this.pending++;
    try {
      return await launch();
    } finally {
      this.pending--;
    }
  }
}
