import type { AgentCommand, AgentModels, AgentModes, PlanEntry } from "@grove/protocol";

/** A `select` config option an agent reported (`configOptions`: mode, model, effort, …). */
export interface AgentConfigOption {
  id: string;
  name: string;
  category?: string;
  currentValue: string;
  options: { value: string; name: string; description?: string }[];
}

/**
 * AG-2: what a session's agent reported about itself over ACP, persisted with the session so
 * the API shows it after a restart, plus what a person chose (re-applied after `session/load`).
 */
export interface AgentState {
  modes?: AgentModes;
  configOptions?: AgentConfigOption[];
  commands?: AgentCommand[];
  plan?: PlanEntry[];
  /** The mode a person chose with `POST /sessions/:id/mode`; wins over the profile's mapping. */
  chosenModeId?: string;
  /** The model a person chose with `POST /sessions/:id/model`. */
  chosenModelId?: string;
}

/** The `model` config option of an agent, if it has one (how ACP v1 agents offer models). */
export function modelOption(state: AgentState | null | undefined): AgentConfigOption | undefined {
  return state?.configOptions?.find((o) => o.category === "model" || o.id === "model");
}

/** The models view of the API (AG-2), from the agent's `model` config option. */
export function modelsOf(state: AgentState | null | undefined): AgentModels | undefined {
  const o = modelOption(state);
  if (!o) return undefined;
  return {
    currentModelId: o.currentValue,
    availableModels: o.options.map((x) => ({ modelId: x.value, name: x.name, ...(x.description ? { description: x.description } : {}) })),
  };
}

/**
 * The mode the agent should be in (AG-2), in order: the person's choice, the profile's pinned
 * mode, the profile's mapping of its permission policy. Undefined when none applies or the
 * agent does not offer that mode.
 */
export function wantedMode(
  state: AgentState | null | undefined,
  profile: { mode?: string; policyModes?: Partial<Record<"ask" | "auto_approve", string>>; permissionPolicy: "ask" | "auto_approve" },
  offered: readonly string[],
): string | undefined {
  const wanted = state?.chosenModeId ?? profile.mode ?? profile.policyModes?.[profile.permissionPolicy];
  return wanted !== undefined && offered.includes(wanted) ? wanted : undefined;
}
