import { existsSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { AppError } from "../../domain/errors.js";
import type { SessionRecord } from "../../domain/records.js";
import { sandboxOptions, type SessionSandbox } from "../../domain/sandbox-profile.js";
import { isScriptedAgent, type AgentProfileConfig } from "../../agents/profiles.js";
import { bwrapStatus, type BwrapStatus } from "../../sandbox/bwrap.js";
import { DEFAULT_BWRAP } from "../../config.js";
import { parseAllowEntry } from "../../domain/allow-list.js";
import { confinedStartOf, defaultAllowList, stateDirEnvOf } from "../../agents/bridges.js";
import { childEnv } from "../../domain/child-env.js";
import { EgressProxy, egressRunDir } from "../../sandbox/egress-proxy.js";
import { EGRESS_SOCKET_INSIDE, sandboxEnv, sandboxedCommand } from "../../sandbox/launcher.js";
import type { SandboxedWorktree } from "../../sandbox/mount-plan.js";
import type { Deps } from "../context.js";
import { projectSessionWorkspace } from "../worktrees/workspace.js";
import { pinSlot } from "../worktrees/workspace-check.js";
import { getRepositoryOnThisRunner } from "../refresh/repository-on-runner.js";

/**
 * SBX-1..3: how a session's agent runs. `sandbox: "off"` in its profile → unconfined, on
 * purpose. Otherwise confined when bubblewrap works here; when it does not, the scripted agent
 * (Grove's own program, the default of a new install) still runs, unconfined and marked so,
 * while every real agent is refused with `409 sandbox_unavailable` naming the fix.
 */
export function sandboxModeFor(deps: Pick<Deps, "sandbox">, profile: AgentProfileConfig): SessionSandbox {
  if (profile.sandbox === "off") return "unconfined";
  const bwrap = sandboxBwrap(deps);
  if (bwrap.available) return "confined";
  if (isScriptedAgent(profile)) return "unconfined";
  throw new AppError("sandbox_unavailable", `agent ${profile.name} must run in a sandbox and none is available: ${bwrap.reason}; fix: ${bwrap.fix}`, {
    agent: profile.name,
    problem: bwrap.reason,
    fix: bwrap.fix,
  });
}

function sandboxEnvOf(deps: Pick<Deps, "sandbox">): NodeJS.ProcessEnv {
  return deps.sandbox?.env ?? process.env;
}

/** SBX-3: the configured bubblewrap, probed (Deps built without sandbox settings: the default). */
function sandboxBwrap(deps: Pick<Deps, "sandbox">): BwrapStatus {
  return bwrapStatus(deps.sandbox?.bwrap ?? DEFAULT_BWRAP, sandboxEnvOf(deps).PATH);
}

/** What the runtime starts for a confined agent, and the proxy that lives as long as it. */
export interface ConfinedLaunch {
  command: string;
  args: string[];
  env: Record<string, string | undefined>;
  proxy: EgressProxy;
}

/** The directories under `GROVE_HOME/agents` that the launched command and args live in (a bridge's install). */
function agentInstallDirs(home: string, command: string, args: readonly string[]): string[] {
  const root = join(home, "agents");
  const out = new Set<string>();
  for (const a of [command, ...args]) {
    if (!isAbsolute(a)) continue;
    const rel = relative(root, a);
    if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) continue;
    out.add(join(root, rel.split(sep)[0]!));
  }
  return [...out];
}

/** `inner` is `outer` or inside it. */
function within(inner: string, outer: string): boolean {
  const rel = relative(outer, inner);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/**
 * SBX-1: the vendor state dirs the agent's environment names (`CODEX_HOME`, `CLAUDE_CONFIG_DIR`,
 * … see agents/bridges.ts), bound writable like its own HOME: a person's `CODEX_HOME` outside
 * the agent's dir is where its login and config are. Never a directory that holds or lies in
 * GROVE_HOME (its database and other tasks' worktrees), nor the person's home or an ancestor of
 * it (everything else of theirs), nor one holding a session repository's git dir (its config and
 * hooks stay read-only): such a value is left out and the agent runs without it.
 */
export function vendorStateDirs(
  profile: AgentProfileConfig,
  env: NodeJS.ProcessEnv,
  groveHome: string,
  personHome: string | undefined,
  gitDirs: readonly string[] = [],
): string[] {
  const agentEnv = childEnv(env, profile.env, profile.inheritEnv);
  const out: string[] = [];
  for (const name of stateDirEnvOf(profile)) {
    const value = agentEnv[name];
    if (!value || !isAbsolute(value)) continue;
    const dir = resolve(value);
    if (!isDir(dir) || within(groveHome, dir) || within(dir, groveHome)) continue;
    if (personHome && within(resolve(personHome), dir)) continue;
    if (gitDirs.some((g) => within(resolve(g), dir))) continue;
    out.push(dir);
  }
  return out;
}

/** The session's worktrees, pinned (SBX-4: a tampered `.git` refuses the launch), with their git dirs. */
async function sessionWorktrees(deps: Pick<Deps, "store" | "git" | "worktrees" | "home" | "remote">, session: SessionRecord): Promise<SandboxedWorktree[]> {
  const ws = await projectSessionWorkspace(deps, session);
  const out: SandboxedWorktree[] = [];
  for (const slot of ws.slots) {
    if (slot.row.status !== "active" || !slot.row.worktreePath) continue;
    const repo = await getRepositoryOnThisRunner(deps, slot.row.repositoryId);
    if (!repo) continue;
    const pin = await pinSlot(deps, { taskId: session.taskId, repositoryId: slot.row.repositoryId, repoPath: repo.path, worktreePath: slot.row.worktreePath });
    const commonDir = await deps.git.commonDir(repo.path);
    // A commit appends to the reflog; an empty logs dir made here is the same git would make.
    mkdirSync(join(commonDir, "logs"), { recursive: true });
    // SBX-4.6: the per-worktree config git reads once a repository sets extensions.worktreeConfig
    // (sparse checkout does); made here, empty if absent, so the plan can bind it read-only —
    // a file the agent could create in its writable admin dir would configure Grove's own git.
    const worktreeConfig = join(pin.gitDir, "config.worktree");
    if (!existsSync(worktreeConfig)) writeFileSync(worktreeConfig, "", { flag: "a", mode: 0o644 });
    out.push({ workTree: pin.workTree, adminDir: pin.gitDir, commonDir });
  }
  return out;
}

/**
 * Builds the confined launch of `profile` (its command already resolved) for `session` in
 * `cwd`: the egress proxy with the profile's allow-list, the agent's own state dir and HOME
 * under `GROVE_HOME/agents/<name>`, and bwrap's command line. `onBlocked` gets every refused
 * connection (SBX-2).
 */
export async function confinedLaunch(
  deps: Pick<Deps, "store" | "git" | "worktrees" | "home" | "remote" | "sandbox">,
  // Undefined: no session (`grove agents check`), so no worktree is bound; the same sandbox otherwise.
  session: SessionRecord | undefined,
  profile: AgentProfileConfig,
  cwd: string,
  onBlocked: (hostPort: string) => void,
  mcp?: { bind: { socket: string; inside: string } | undefined; program: string[] },
): Promise<ConfinedLaunch> {
  const bwrap = sandboxBwrap(deps);
  if (!bwrap.available) {
    const who = session ? `session ${session.id}` : `agent ${profile.name}`;
    throw new AppError("sandbox_unavailable", `${who} runs confined and no sandbox is available now: ${bwrap.reason}; fix: ${bwrap.fix}`, {
      agent: profile.name,
      problem: bwrap.reason,
      fix: bwrap.fix,
    });
  }
  const options = sandboxOptions(profile.sandbox);
  const allow = (options.network ?? defaultAllowList(profile)).map(parseAllowEntry);
  const worktrees = session ? await sessionWorktrees(deps, session) : [];
  const agentDir = join(deps.home, "agents", profile.name);
  const agentHome = join(agentDir, "home");
  mkdirSync(agentHome, { recursive: true, mode: 0o700 });
  const proxy = await EgressProxy.start({ allow, forbiddenPorts: () => deps.sandbox?.ports() ?? [], onBlocked, runDir: egressRunDir(deps.home) });
  const readable = [...(options.readable ?? []), ...agentInstallDirs(deps.home, profile.command, profile.args).filter((d) => d !== agentDir)];
  const personHome = sandboxEnvOf(deps).HOME;
  const writable = [
    ...(options.writable ?? []),
    ...vendorStateDirs(
      profile,
      process.env,
      resolve(deps.home),
      personHome,
      worktrees.map((w) => w.commonDir),
    ),
  ];
  const start = confinedStartOf(profile);
  const args = [...profile.args, ...start.args];
  const wrapped = sandboxedCommand(
    bwrap.path,
    {
      groveHome: deps.home,
      personHome,
      agentDir,
      agentHome,
      cwd,
      worktrees,
      options: { ...options, readable, writable },
      egress: { socket: proxy.socketPath, inside: EGRESS_SOCKET_INSIDE },
      // MCP-1: the gateway's socket is the sandbox's only door to Grove; the shim stays visible.
      ...(mcp?.bind ? { mcp: mcp.bind } : {}),
      program: [profile.command, ...profile.args, ...(mcp?.program ?? [])],
      ...(start.hiddenInWorkspace ? { hiddenInWorkspace: start.hiddenInWorkspace } : {}),
    },
    profile.command,
    args,
  );
  // A profile that sets HOME itself (and makes it writable or readable) keeps it.
  return { ...wrapped, env: { ...profile.env, ...sandboxEnv(profile.env.HOME ?? agentHome), ...start.env }, proxy };
}

/** WF-2.13: how a workflow's command starts: the program, its variables, and what to close when it ends. */
export interface CommandLaunch {
  command: string;
  args: string[];
  env: Record<string, string | undefined>;
  inheritEnv: readonly string[];
  sandbox: SessionSandbox;
  close(): Promise<void>;
}

/**
 * WF-2.13: a shell command confined exactly like `session`'s agent (SBX-1..3): the same
 * profile decides confined or not (a real agent without a sandbox is refused the same way),
 * the same mount plan binds the session's worktrees writable and hides GROVE_HOME, the same
 * allow-list guards the network, HOME is the agent's own. Only the program differs: `sh -c`.
 */
export async function commandLaunch(
  deps: Pick<Deps, "store" | "git" | "worktrees" | "home" | "remote" | "sandbox">,
  session: SessionRecord,
  profile: AgentProfileConfig,
  cwd: string,
  shell: string,
  onBlocked: (hostPort: string) => void,
): Promise<CommandLaunch> {
  const sandbox = sandboxModeFor(deps, profile);
  // The agent's own program and its bridge's start arguments are not part of a command's launch.
  const { install: _install, ...bare } = profile;
  const asShell: AgentProfileConfig = { ...bare, command: "/bin/sh", args: ["-c", shell] };
  if (sandbox === "unconfined")
    return { command: "/bin/sh", args: ["-c", shell], env: profile.env, inheritEnv: profile.inheritEnv ?? [], sandbox, close: async () => undefined };
  const c = await confinedLaunch(deps, session, asShell, cwd, onBlocked);
  return { command: c.command, args: c.args, env: c.env, inheritEnv: profile.inheritEnv ?? [], sandbox, close: () => c.proxy.close() };
}
