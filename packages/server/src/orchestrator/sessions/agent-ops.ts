import { join } from "node:path";
import type { AgentProfile } from "@grove/protocol";
import { checkAgent } from "../../agents/agent-check.js";
import { askProblem } from "../../agents/bridges.js";
import { installAgent, readInitializeCache, resolveLaunch } from "../../agents/agent-install.js";
import { toPublicProfile } from "../../agents/profiles.js";
import { modelOption } from "../../domain/agent-state.js";
import { AppError } from "../../domain/errors.js";
import type { SessionRecord } from "../../domain/records.js";
import type { Deps } from "../context.js";
import { findProfile } from "./agent-launch.js";
import { currentProfile, currentProfiles } from "./current-profile.js";
import type { LiveSessions } from "./live-sessions.js";
import { acpLogFile } from "../worktrees/paths.js";
import { getSessionOr404 } from "./session-ops.js";
import { confinedLaunch, sandboxModeFor } from "./sandbox-launch.js";

/** AG-3 `GET /agents`: every profile with its availability, version and cached auth methods. */
export async function listAgentProfiles(deps: Pick<Deps, "store" | "profiles" | "home">): Promise<AgentProfile[]> {
  // WEB-44: as each profile starts now, the person's stored choices included.
  return (await currentProfiles(deps)).map((p) => {
    const launch = resolveLaunch(p, deps.home);
    const cached = readInitializeCache(deps.home, p.name);
    const version = launch.version ?? cached?.version;
    const ask = askProblem(p);
    return toPublicProfile(p, {
      sandbox: p.sandbox === "off" ? "off" : "confined",
      ...(ask ? { askProblem: ask } : {}),
      command: launch.command,
      args: launch.args,
      available: launch.available,
      ...(version ? { version } : {}),
      ...(cached ? { authMethods: cached.authMethods } : {}),
      ...(launch.problem ? { problem: launch.fix ? `${launch.problem}; fix: ${launch.fix}` : launch.problem } : {}),
    });
  });
}

/** AG-3 `POST /agents/:name/install`: the pinned bridge into GROVE_HOME/agents/<name> (idempotent). */
export async function installAgentProfile(deps: Pick<Deps, "store" | "profiles" | "home">, name: string): Promise<AgentProfile & { installed: boolean }> {
  const r = await installAgent(findProfile(deps, name), deps.home);
  const view = (await listAgentProfiles(deps)).find((p) => p.name === name);
  if (!view) throw new AppError("agent_unknown", `no agent profile named ${JSON.stringify(name)}`);
  return { ...view, installed: r.installed };
}

/** The ports (orchestrator/context.ts) checkAgentProfile uses. */
export type CheckAgentProfilePorts = Pick<Deps, "store" | "git" | "worktrees" | "profiles" | "log" | "home" | "now" | "remote" | "sandbox">;

/** AG-3 `POST /agents/:name/check`: `initialize` only; caches version and auth methods. */
export async function checkAgentProfile(deps: CheckAgentProfilePorts, name: string): Promise<AgentProfile & { startMs: number }> {
  const profile = await currentProfile(deps, name);
  // SBX-1..3: confined exactly as a session would be (a real agent without a sandbox is refused).
  const confined = sandboxModeFor(deps, profile) === "confined";
  const agentHome = join(deps.home, "agents", profile.name, "home");
  const r = await checkAgent(profile, deps.home, {
    // Inside the sandbox GROVE_HOME is empty: the check runs in the agent's own HOME.
    cwd: confined ? agentHome : deps.home,
    logFile: acpLogFile(deps, `check-${name}`),
    now: deps.now,
    ...(confined
      ? {
          confine: async (launch) => {
            const c = await confinedLaunch(deps, undefined, { ...profile, ...launch }, agentHome, (hostPort) =>
              deps.log.info({ agent: name, hostPort }, "sandbox blocked a connection of an agent check"),
            );
            return { command: c.command, args: c.args, env: c.env, close: () => c.proxy.close() };
          },
        }
      : {}),
  });
  const view = (await listAgentProfiles(deps)).find((p) => p.name === name);
  if (!view) throw new AppError("agent_unknown", `no agent profile named ${JSON.stringify(name)}`);
  return { ...view, startMs: r.startMs };
}

/** AG-2: a mode or model the agent did not offer; `offered` lists what it did, for the person's choice. */
function notOffered(field: "modeId" | "modelId", offered: string[], message: string): AppError {
  return new AppError("agent_option_unsupported", message, { field, offered });
}

/**
 * AG-2 `POST /sessions/:id/mode`: switches the live agent (`session/set_mode`) and remembers
 * the choice, which wins over the profile's policy mapping after every later `session/load`.
 * Without a live agent the choice is applied when it next starts.
 */
export async function setSessionMode(deps: Pick<Deps, "store" | "agents">, live: LiveSessions, id: string, modeId: string): Promise<SessionRecord> {
  const session = await getSessionOr404(deps, id);
  const state = live.agentStateFor(session);
  const modes = state.current.modes;
  const offered = modes?.availableModes.map((m) => m.id) ?? [];
  if (!offered.includes(modeId)) {
    throw notOffered("modeId", offered, modes ? `agent ${session.agent} offers no mode ${JSON.stringify(modeId)}` : `agent ${session.agent} reported no modes`);
  }
  const handle = deps.agents.get(id);
  if (handle) await handle.setMode(modeId);
  state.choose({ chosenModeId: modeId });
  if (handle && modes) state.apply({ kind: "mode", currentModeId: modeId });
  await state.flush();
  return (await deps.store.getSession(id)) ?? session;
}

/** AG-2 `POST /sessions/:id/model`: the agent's `model` config option (`session/set_config_option`). */
export async function setSessionModel(deps: Pick<Deps, "store" | "agents">, live: LiveSessions, id: string, modelId: string): Promise<SessionRecord> {
  const session = await getSessionOr404(deps, id);
  const state = live.agentStateFor(session);
  const option = modelOption(state.current);
  const offered = option?.options.map((o) => o.value) ?? [];
  if (!option || !offered.includes(modelId)) {
    throw notOffered(
      "modelId",
      offered,
      option ? `agent ${session.agent} offers no model ${JSON.stringify(modelId)}` : `agent ${session.agent} reported no models`,
    );
  }
  const handle = deps.agents.get(id);
  if (handle) {
    const after = await handle.setConfigOption(option.id, modelId);
    state.apply({
      kind: "config",
      configOptions: after.length > 0 ? after : (state.current.configOptions ?? []).map((o) => (o.id === option.id ? { ...o, currentValue: modelId } : o)),
    });
  }
  state.choose({ chosenModelId: modelId });
  await state.flush();
  return (await deps.store.getSession(id)) ?? session;
}
