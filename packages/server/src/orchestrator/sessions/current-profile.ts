import type { AgentProfileConfig } from "../../agents/profiles.js";
import { AppError } from "../../domain/errors.js";
import type { AgentSettingRecord } from "../../store/settings-store.js";
import type { Deps } from "../context.js";

/**
 * WEB-44: the profile an agent starts with is the loaded one (agents.json or the built-in) with
 * the person's stored choices over it, read from the database at each use — a launch, a check,
 * `GET /agents` — so a change made through any runner of a shared database holds on every runner
 * from its next use, without a restart or a notification (as USE-2's daily cap is read at each
 * check). The loaded profiles are never written: "confined" after "off" is the file's own
 * confinement again.
 */
export function withSetting(p: AgentProfileConfig, s: AgentSettingRecord | undefined): AgentProfileConfig {
  if (!s) return p;
  const out: AgentProfileConfig = { ...p };
  if (s.permissionPolicy !== undefined) out.permissionPolicy = s.permissionPolicy;
  if (s.sandbox === "off") out.sandbox = "off";
  else if (s.sandbox === "confined" && p.sandbox === "off") delete out.sandbox;
  return out;
}

/** The named profile as it starts now (`agent_unknown` when no profile has that name). */
export async function currentProfile(deps: Pick<Deps, "store" | "profiles">, name: string): Promise<AgentProfileConfig> {
  const p = deps.profiles.find((x) => x.name === name);
  if (!p) throw new AppError("agent_unknown", `no agent profile named ${JSON.stringify(name)}`, { field: "agent", known: deps.profiles.map((x) => x.name) });
  return withSetting(p, await deps.store.settings.agentSetting(name));
}

/** Every profile as it starts now (one read of the person's choices). */
export async function currentProfiles(deps: Pick<Deps, "store" | "profiles">): Promise<AgentProfileConfig[]> {
  const settings = new Map((await deps.store.settings.agentSettings()).map((s) => [s.name, s]));
  return deps.profiles.map((p) => withSetting(p, settings.get(p.name)));
}
