import type { AgentProfile, EditorSetting, PatchAgentBody } from "@grove/protocol";
import { AppError } from "../../domain/errors.js";
import type { AgentSettingRecord } from "../../store/settings-store.js";
import type { Deps } from "../context.js";
import { listAgentProfiles } from "../sessions/agent-ops.js";

/**
 * WEB-44: what a person sets on the Settings page instead of in a file, kept in the database
 * (migration 031) and read at each use, so every runner of the database follows a change from
 * its next use without a restart: an agent profile's permission policy and sandbox over the
 * loaded profile (`sessions/current-profile.ts`), and the editor command.
 */

/** `PATCH /agents/:name`. */
export async function patchAgentProfile(deps: Pick<Deps, "store" | "profiles" | "home" | "now">, name: string, body: PatchAgentBody): Promise<AgentProfile> {
  const p = deps.profiles.find((x) => x.name === name);
  if (!p) throw new AppError("not_found", `no agent profile named ${JSON.stringify(name)}`, { name, known: deps.profiles.map((x) => x.name) });
  const s: AgentSettingRecord = { name, ...body };
  await deps.store.settings.putAgentSetting(s, deps.now());
  const view = (await listAgentProfiles(deps)).find((x) => x.name === name);
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
