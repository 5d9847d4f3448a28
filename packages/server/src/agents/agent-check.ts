import { AppError } from "../domain/errors.js";
import { AcpClientConnection } from "./acp-connection.js";
import { acpSdk } from "./acp-sdk.js";
import { writeInitializeCache, requireLaunch, type InitializeInfo } from "./agent-install.js";
import { authMethodsOf } from "./agent-setup.js";
import { AgentProcess } from "./agent-process.js";
import type { AgentProfileConfig } from "./profiles.js";

/**
 * AG-3 `grove agents check <name>`: starts the agent, asks `initialize` (nothing else: no
 * session, no model call), caches what it said (version, auth methods) for `GET /agents`, and
 * stops it. The agent's environment is the one a session gets (SEC-7 allow-list + the profile's
 * `inheritEnv`, then `env`). Unavailable → `agent_unavailable`; no ACP answer →
 * `agent_start_failed` with the agent's stderr in `details.stderr`.
 *
 * SBX-1..3: `confine` wraps the resolved command the way a session's start is wrapped (the same
 * sandbox, with no worktree in it); the check never starts a confined profile's agent
 * unconfined. Its `close` runs once the agent is gone.
 */
export interface CheckLaunch {
  command: string;
  args: string[];
  env: Record<string, string | undefined>;
  close(): Promise<void>;
}

export async function checkAgent(
  p: AgentProfileConfig,
  home: string,
  opts: { cwd: string; logFile: string; timeoutMs?: number; now(): string; confine?(launch: { command: string; args: string[] }): Promise<CheckLaunch> },
): Promise<InitializeInfo & { startMs: number }> {
  const resolved = requireLaunch(p, home);
  const t0 = Date.now();
  const sdk = await acpSdk();
  const launch = opts.confine ? await opts.confine({ command: resolved.command, args: resolved.args }) : { ...resolved, env: {}, close: async () => undefined };
  let proc: AgentProcess;
  try {
    proc = await AgentProcess.spawn(launch.command, launch.args, opts.cwd, { ...p.env, ...launch.env }, p.inheritEnv);
  } catch (e) {
    await launch.close();
    throw e;
  }
  const conn = new AcpClientConnection(
    {
      output: proc.child.stdin,
      input: proc.child.stdout,
      logFile: opts.logFile,
      permissionPolicy: "ask",
      onEvent: () => undefined,
      onPermission: async () => "cancelled",
    },
    sdk,
  );
  void proc.exited.then(() => conn.close());
  try {
    const init = await conn.initialize(opts.timeoutMs ?? 60_000);
    const info: InitializeInfo = {
      ...(init.agentInfo?.name ? { agentName: init.agentInfo.name } : {}),
      ...(init.agentInfo?.version ? { version: init.agentInfo.version } : resolved.version ? { version: resolved.version } : {}),
      authMethods: authMethodsOf(init),
      at: opts.now(),
    };
    writeInitializeCache(home, p.name, info);
    return { ...info, startMs: Date.now() - t0 };
  } catch (e) {
    await proc.stderrSettled(1000);
    throw new AppError("agent_start_failed", `agent ${p.name} did not answer initialize: ${e instanceof Error ? e.message : String(e)}`, {
      agent: p.name,
      step: "initialize",
      stderr: proc.stderrTail,
    });
  } finally {
    await conn.close();
    await proc.kill(2000);
    await launch.close();
  }
}
