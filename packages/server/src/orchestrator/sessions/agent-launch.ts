import { AppError } from "../../domain/errors.js";
import type { AgentHandle, PermissionAsk } from "../../agents/runtime.js";
import type { AgentProfileConfig } from "../../agents/profiles.js";
import type { SessionRecord } from "../../domain/records.js";
import type { Deps } from "../context.js";
import { requireLaunch, writeInitializeCache } from "../../agents/agent-install.js";
import { authMethodsOf } from "../../agents/agent-setup.js";
import { acpLogFile } from "../worktrees/paths.js";
import type { LiveSessions } from "./live-sessions.js";
import type { SessionRecorder } from "./recorder.js";
import { confinedLaunch, sandboxModeFor, type ConfinedLaunch } from "./sandbox-launch.js";
import { sessionMcp } from "./session-mcp.js";
import { mcpToolNamesOf } from "../../agents/bridges.js";
import { currentProfile } from "./current-profile.js";

export function findProfile(deps: Pick<Deps, "profiles">, name: string): AgentProfileConfig {
  const p = deps.profiles.find((x) => x.name === name);
  if (!p) throw new AppError("agent_unknown", `no agent profile named ${JSON.stringify(name)}`, { field: "agent", known: deps.profiles.map((x) => x.name) });
  return p;
}

/** The ports (orchestrator/context.ts) spawnAgent uses. */
export type SpawnAgentPorts = Pick<
  Deps,
  "store" | "git" | "worktrees" | "agents" | "profiles" | "log" | "home" | "runnerId" | "now" | "remote" | "sandbox" | "mcp"
>;

/**
 * Spawns the session's own agent process in `cwd` (SES-4, SES-5), resuming its ACP session
 * with `session/load` when asked and possible (SES-6), and records pid + start time so a
 * crashed server's orphans can be found without ever killing a recycled pid.
 */
export async function spawnAgent(deps: SpawnAgentPorts, live: LiveSessions, session: SessionRecord, cwd: string, resume: boolean): Promise<AgentHandle> {
  // WEB-44: the person's stored choices (policy, sandbox) as they are now, whichever runner set them.
  const configured = await currentProfile(deps, session.agent);
  // AG-3: a missing command or an uninstalled bridge fails here, before any process starts.
  const launch = requireLaunch(configured, deps.home);
  const profile = { ...configured, command: launch.command, args: launch.args };
  const recorder = live.recorderFor(session);
  const agentState = live.agentStateFor(session);
  const chosen = agentState.current;
  // SBX-1..3: every agent starts through the sandbox seam; a real agent without one is refused.
  const sandbox = sandboxModeFor(deps, configured);
  // MCP-1: Grove's MCP server, with a token minted for this start, revoked when the agent exits.
  const mcp = sessionMcp(deps, session, sandbox === "confined", configured.mcp, mcpToolNamesOf(configured));
  let confined: ConfinedLaunch | undefined;
  let handle: AgentHandle;
  try {
    confined =
      sandbox === "confined" ? await confinedLaunch(deps, session, profile, cwd, (hostPort) => noteBlocked(deps, recorder, session, hostPort), mcp) : undefined;
    handle = await startAgent();
  } catch (e) {
    mcp?.revoke();
    await confined?.proxy.close();
    throw e;
  }
  if (sandbox !== session.sandbox) await deps.store.setSessionSandbox(session.id, sandbox);
  return afterStart(handle);

  function startAgent(): Promise<AgentHandle> {
    return deps.agents.start({
      sessionId: session.id,
      profile: confined ? { ...profile, command: confined.command, args: confined.args } : profile,
      ...(confined ? { extraEnv: confined.env } : {}),
      cwd,
      logFile: acpLogFile(deps, session.id),
      ...(mcp ? { mcpServers: mcp.servers } : {}),
      ...(resume && session.acpSessionId ? { resume: { acpSessionId: session.acpSessionId } } : {}),
      chosen: { ...(chosen.chosenModeId ? { modeId: chosen.chosenModeId } : {}), ...(chosen.chosenModelId ? { modelId: chosen.chosenModelId } : {}) },
      onInitialize: (init) =>
        writeInitializeCache(deps.home, configured.name, {
          ...(init.agentInfo?.name ? { agentName: init.agentInfo.name } : {}),
          ...(init.agentInfo?.version ? { version: init.agentInfo.version } : {}),
          authMethods: authMethodsOf(init),
          at: deps.now(),
        }),
      callbacks: {
        onEvent: (e) => recorder.handle(e),
        onPermission: (ask: PermissionAsk) => live.askPermission(session, ask),
        onElicitation: (ask, signal) => live.elicit(session, ask, signal),
        onExit: (info) => {
          // The proxy serves this one process: it goes with it (SBX-2).
          void confined?.proxy.close();
          mcp?.revoke();
          live.onAgentExit(session.id, info);
        },
      },
    });
  }

  async function afterStart(handle: AgentHandle): Promise<AgentHandle> {
    const now = deps.now();
    await deps.store.upsertAgentProcess({ sessionId: session.id, runnerId: deps.runnerId, pid: handle.pid, startTime: handle.startTime, createdAt: now });
    if (handle.acpSessionId !== session.acpSessionId) await deps.store.setSessionAcpId(session.id, handle.acpSessionId, now);
    agentState.setup(handle.setup);
    if (resume && !handle.resumed) {
      const messages = await deps.store.listMessages(session.id);
      if (messages.length > 0) live.setPendingSummary(session.id, summarize(messages.map((m) => ({ role: m.role, text: m.text }))));
    }
    // `pid` is the server's own in every log line: the agent's is `agentPid`.
    deps.log.info(
      { sessionId: session.id, agentPid: handle.pid, cwd, resumed: handle.resumed, mode: handle.setup.modes?.currentModeId, sandbox },
      "agent started",
    );
    return handle;
  }
}

/** SBX-2: a connection the egress proxy refused is a transcript note and one more on the session's count. */
function noteBlocked(deps: Pick<Deps, "store" | "log">, recorder: SessionRecorder, session: SessionRecord, hostPort: string): void {
  recorder.note("system", `blocked: ${hostPort}`, { sandbox: "blocked", hostPort });
  deps.store.countBlockedConnection(session.id).then(
    (count) => deps.log.info({ sessionId: session.id, hostPort, count }, "sandbox blocked a connection"),
    (e: unknown) => deps.log.warn({ err: e, sessionId: session.id }, "counting a blocked connection failed"),
  );
}

/**
 * The conversation so far, for an agent that could not `session/load` (SES-6). Each line is
 * quoted with "> " so that a scripted agent reads it as inert text, not as commands.
 */
export function summarize(messages: { role: string; text: string }[], maxChars = 8000): string {
  const lines = messages.filter((m) => m.role === "user" || m.role === "agent").map((m) => `${m.role}: ${m.text.replace(/\s+/g, " ").trim()}`);
  let text = lines.join("\n");
  if (text.length > maxChars) text = "…" + text.slice(text.length - maxChars);
  return ["Summary of this conversation so far (the previous agent process could not be resumed):", ...text.split("\n")].map((l) => `> ${l}`).join("\n");
}
