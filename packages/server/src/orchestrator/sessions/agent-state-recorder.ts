import type { AgentEvent, SessionSetup } from "../../agents/runtime.js";
import type { AgentState } from "../../domain/agent-state.js";
import type { SessionRecord } from "../../domain/records.js";
import { sessionView } from "../../domain/views.js";
import type { Deps } from "../context.js";

/**
 * AG-2: keeps a session's `agentState` (modes, config options such as the model, slash
 * commands, latest plan) as the agent reports it, persists it with the session and publishes
 * `session.updated` so pages and clients see a mode switch or a new plan at once. Writes are
 * chained in arrival order; the agent's own runner is the only writer.
 */
export class AgentStateRecorder {
  private state: AgentState;
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly deps: Pick<Deps, "store" | "bus" | "log">,
    private readonly sessionId: string,
    initial: AgentState | null | undefined,
  ) {
    this.state = { ...(initial ?? {}) };
  }

  get current(): AgentState {
    return this.state;
  }

  /** After `session/new`/`session/load` (and the preferred mode was set): the agent's modes and options. */
  setup(s: SessionSetup): void {
    this.update({ ...(s.modes ? { modes: s.modes } : {}), ...(s.configOptions.length > 0 ? { configOptions: s.configOptions } : {}) });
  }

  /** A person's choice, re-applied after every later `session/load` (AG-2). */
  choose(patch: Pick<AgentState, "chosenModeId" | "chosenModelId">): void {
    this.update(patch);
  }

  /** Applies the agent-state part of an update; false when the event is not about agent state. */
  apply(e: AgentEvent): boolean {
    switch (e.kind) {
      case "mode":
        if (this.state.modes) this.update({ modes: { ...this.state.modes, currentModeId: e.currentModeId } });
        else this.update({ modes: { currentModeId: e.currentModeId, availableModes: [] } });
        return true;
      case "config": {
        const mode = e.configOptions.find((o) => o.category === "mode");
        const modes = mode && this.state.modes ? { ...this.state.modes, currentModeId: mode.currentValue } : this.state.modes;
        this.update({ configOptions: e.configOptions, ...(modes ? { modes } : {}) });
        return true;
      }
      case "commands":
        this.update({ commands: e.commands });
        return true;
      case "plan":
        this.update({ plan: e.entries });
        return false; // the plan is also a transcript message
      default:
        return false;
    }
  }

  flush(): Promise<void> {
    return this.chain;
  }

  private update(patch: Partial<AgentState>): void {
    this.state = { ...this.state, ...patch };
    const snapshot = this.state;
    this.chain = this.chain
      .then(async () => {
        await this.deps.store.setSessionAgentState(this.sessionId, snapshot);
        const s: SessionRecord | undefined = await this.deps.store.getSession(this.sessionId);
        if (s) this.deps.bus.publish("session.updated", { session: sessionView(s) });
      })
      .catch((err: unknown) => this.deps.log.error({ err, sessionId: this.sessionId }, "persisting the agent state failed"));
  }
}
