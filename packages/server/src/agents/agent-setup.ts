import type * as acp from "@agentclientprotocol/sdk";
import { wantedMode } from "../domain/agent-state.js";
import { AppError } from "../domain/errors.js";
import type { AcpClientConnection, SessionSetup } from "./acp-connection.js";
import { loadedAcpSdk } from "./acp-sdk.js";
import type { AgentProfileConfig } from "./profiles.js";

/** The agent refused with ACP's `authRequired` error (a session or a turn needs credentials). */
export function isAuthRequired(e: unknown): boolean {
  // Before the SDK is loaded no agent has answered, so no SDK error can exist.
  const sdk = loadedAcpSdk();
  return sdk !== undefined && e instanceof sdk.RequestError && e.code === sdk.RequestError.authRequired().code;
}

/** An auth method an agent advertised in `initialize`. */
export interface AuthMethodInfo {
  id: string;
  name: string;
  description?: string;
}

/** The auth methods of an `initialize` answer, in Grove's shape. */
export function authMethodsOf(init: acp.InitializeResponse): AuthMethodInfo[] {
  return (init.authMethods ?? []).map((m) => {
    const x = m as { id: string; name: string; description?: string | null };
    return { id: x.id, name: x.name, ...(x.description ? { description: x.description } : {}) };
  });
}

/**
 * AG-3: the auth method to send with ACP `authenticate` before the session starts: the first
 * advertised `env_var` method (codex-acp: `codex-api-key`, `openai-api-key`) whose variables are
 * all set in the agent's environment. Such an agent reads the key itself once told which method to
 * use; without the call it answers `authRequired` even with the key set. Other kinds (a browser
 * login, the agent's own terminal flow) are never started by Grove.
 */
export function envAuthMethod(init: acp.InitializeResponse, env: Readonly<Record<string, string | undefined>>): string | undefined {
  for (const m of init.authMethods ?? []) {
    const x = m as { id: string; type?: string; vars?: { name: string; optional?: boolean }[] };
    if (x.type !== "env_var" || !Array.isArray(x.vars) || x.vars.length === 0) continue;
    if (x.vars.every((v) => v.optional === true || (env[v.name] ?? "") !== "")) return x.id;
  }
  return undefined;
}

/**
 * AG-3: `agent_auth_required`, naming the agent's auth methods and what fixes it (the
 * profile's `auth.fix`, else a generic hint), so a person knows what to do before any turn.
 */
export function authRequiredError(profile: AgentProfileConfig, cause: unknown, authMethods: AuthMethodInfo[], stderr = ""): AppError {
  const why = cause instanceof Error ? cause.message : String(cause);
  const fix = profile.auth?.fix ?? `give agent ${profile.name} its credentials (env in GROVE_HOME/agents.json) or log in with the agent's own CLI`;
  const methods = authMethods.length > 0 ? ` Its auth methods: ${authMethods.map((m) => m.name).join(", ")}.` : "";
  return new AppError("agent_auth_required", `agent ${profile.name} needs authentication (${why}).${methods} Fix: ${fix}`, {
    agent: profile.name,
    authMethods,
    fix,
    ...(profile.auth?.env ? { env: profile.auth.env } : {}),
    stderr,
  });
}

/**
 * AG-2: puts a freshly started or loaded ACP session into the mode it should be in — the
 * person's choice, else the profile's pinned mode, else its mapping of the permission policy
 * (for Claude, `ask` → its asking mode) — and the model a person chose. Returns the setup as
 * it is afterwards. A refused set_mode fails the start: an agent that should ask must not run
 * in a mode where it does not.
 */
export async function applyPreferences(
  conn: AcpClientConnection,
  acpSessionId: string,
  setup: SessionSetup,
  input: { profile: AgentProfileConfig; chosen?: { modeId?: string; modelId?: string } },
  timeoutMs: number,
): Promise<SessionSetup> {
  let { modes, configOptions } = setup;
  if (modes) {
    const wanted = wantedMode(
      input.chosen?.modeId !== undefined ? { chosenModeId: input.chosen.modeId } : undefined,
      input.profile,
      modes.availableModes.map((m) => m.id),
    );
    if (wanted !== undefined && wanted !== modes.currentModeId) {
      if (setup.modeOption !== undefined) await conn.setConfigOption(acpSessionId, setup.modeOption, wanted, timeoutMs);
      else await conn.setMode(acpSessionId, wanted, timeoutMs);
      modes = { ...modes, currentModeId: wanted };
      configOptions = configOptions.map((o) => (o.category === "mode" && o.options.some((x) => x.value === wanted) ? { ...o, currentValue: wanted } : o));
    }
  }
  const modelId = input.chosen?.modelId;
  const model = configOptions.find((o) => o.category === "model" || o.id === "model");
  if (modelId !== undefined && model && model.currentValue !== modelId && model.options.some((o) => o.value === modelId)) {
    const after = await conn.setConfigOption(acpSessionId, model.id, modelId, timeoutMs);
    configOptions = after.length > 0 ? after : configOptions.map((o) => (o === model ? { ...o, currentValue: modelId } : o));
  }
  return { ...(modes ? { modes } : {}), configOptions, ...(setup.modeOption !== undefined ? { modeOption: setup.modeOption } : {}) };
}
