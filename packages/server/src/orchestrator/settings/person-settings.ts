import type { AgentProfile, EditorSetting, PatchAgentBody } from "@grove/protocol";
import type { AgentProfileConfig } from "../../agents/profiles.js";
import { AppError } from "../../domain/errors.js";
import type { AgentSettingRecord } from "../../store/settings-store.js";
import type { Deps } from "../context.js";
import { listAgentProfiles } from "../sessions/agent-ops.js";

/**
 * WEB-44: what a person sets on the Settings page instead of in a file, kept in the database
 * (migration 031) and in force without a restart. An agent profile's permission policy and
 * sandbox are written over the loaded profile in place (`deps.profiles`, which every launch
 * reads), from the file's own values kept aside, so "confined" after "off" gets the profile's
 * confinement extras back. Another runner takes the choices at its next start.
 */

type Own = Pick<AgentProfileConfig, "permissionPolicy" | "sandbox">;
/** Each profile's values as agents.json (or the built-in) gave them, before any person's choice. */
const fileValues = new WeakMap<AgentProfileConfig, Own>();

function own(p: AgentProfileConfig): Own {
  let o = fileValues.get(p);
  if (!o) {
    o = { permissionPolicy: p.permissionPolicy, ...(p.sandbox !== undefined ? { sandbox: p.sandbox } : {}) };
    fileValues.set(p, o);
  }
  return o;
}

function apply(p: AgentProfileConfig, s: AgentSettingRecord): void {
  const o = own(p);
  if (s.permissionPolicy !== undefined) p.permissionPolicy = s.permissionPolicy;
  if (s.sandbox === "off") p.sandbox = "off";
  else if (s.sandbox === "confined") {
    if (o.sandbox !== undefined && o.sandbox !== "off") p.sandbox = o.sandbox;
    else delete p.sandbox;
  }
}

/** At start-up: the person's stored choices over the loaded profiles (a profile no longer configured is skipped). */
export async function applyAgentSettings(deps: Pick<Deps, "store" | "profiles">): Promise<void> {
  for (const s of await deps.store.settings.agentSettings()) {
    const p = deps.profiles.find((x) => x.name === s.name);
    if (p) apply(p, s);
  }
}

/** `PATCH /agents/:name`. */
export async function patchAgentProfile(deps: Pick<Deps, "store" | "profiles" | "home" | "now">, name: string, body: PatchAgentBody): Promise<AgentProfile> {
  const p = deps.profiles.find((x) => x.name === name);
  if (!p) throw new AppError("not_found", `no agent profile named ${JSON.stringify(name)}`, { name, known: deps.profiles.map((x) => x.name) });
  const s: AgentSettingRecord = { name, ...body };
  await deps.store.settings.putAgentSetting(s, deps.now());
  apply(p, s);
  const view = listAgentProfiles(deps).find((x) => x.name === name);
  if (!view) throw new AppError("not_found", `no agent profile named ${JSON.stringify(name)}`, { name });
  return view;
}

const EDITOR = "editor";

/** `GET /settings/editor`: the person's command, else GROVE_EDITOR (`fromEnvironment`). */
export async function editorSetting(deps: Pick<Deps, "store">, fromEnvironment: string | undefined): Promise<EditorSetting> {
  const mine = await deps.store.settings.get(EDITOR);
  if (mine !== undefined) return { command: mine, source: "person" };
  return fromEnvironment ? { command: fromEnvironment, source: "environment" } : { command: null, source: "none" };
}

/** `PUT /settings/editor` (a command) and `DELETE /settings/editor` (`undefined`: GROVE_EDITOR again). */
export async function setEditor(deps: Pick<Deps, "store" | "now">, command: string | undefined, fromEnvironment: string | undefined): Promise<EditorSetting> {
  await deps.store.settings.set(EDITOR, command, deps.now());
  return editorSetting(deps, fromEnvironment);
}
