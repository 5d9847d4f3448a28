import { existsSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import type { SandboxOptions } from "../domain/sandbox-profile.js";

/**
 * SBX-1: the bubblewrap mount plan of one agent. bwrap applies its options in order and a later
 * mount covers an earlier one, so the plan reads top to bottom:
 *
 * 1. the whole root read-only, a fresh `/dev`, a `/proc` of the sandbox's own pid namespace
 *    (the server's `/proc/<pid>/environ` does not exist in there), a private `/tmp`, an empty
 *    `/run` (no host sockets: database, docker, dbus) — with the agent's own program bound back
 *    read-only where it lives under them (see {@link programRoots});
 * 2. an empty directory over `GROVE_HOME` (its database, `credential.key`, the person token,
 *    other tasks' worktrees), made read-only once the binds below are on it;
 * 3. the profile's `sandbox.readable` paths, then the agent's own dir `GROVE_HOME/agents/<name>`
 *    writable (its state and its HOME) with the bridge install in it read-only;
 * 4. per worktree: its repository's common git dir read-only, then the parts a commit writes
 *    writable (`objects`, `refs`, `logs`, the worktree's own admin dir, but its `config.worktree`
 *    read-only) — `config`, `hooks/`, `info/` stay read-only, so nothing the agent writes runs in the person's git later; the
 *    worktree writable and its `.git` link read-only on top (SBX-4: the link cannot be pointed
 *    at a git dir the agent wrote);
 * 5. the profile's `sandbox.writable` paths, then its bridge's `hiddenInWorkspace` directories of
 *    the cwd and each worktree covered by an empty one (Gemini CLI's project `.gemini/`);
 * 6. hidden last, so no bind above re-exposes them: the person's `~/.ssh`, `~/.aws`,
 *    `~/.config/gh`, `~/.gnupg` and the profile's `sandbox.deny`;
 * 7. the egress proxy's Unix socket (SBX-2), the only way out of the empty network namespace,
 *    and Grove's MCP gateway socket (MCP-1), the only way to Grove.
 *
 * Namespaces: own pid, network and IPC namespaces; `--die-with-parent` so the sandbox dies with
 * the server even after `kill -9`. No `--new-session`: the agent already leads its own session
 * with no controlling terminal (Grove starts it with setsid and pipes, so there is no terminal to
 * inject keystrokes into), and keeping that session id is what lets SEC-7's process-group reaping
 * find every process of the sandbox from the host's `/proc`.
 */
export interface SandboxedWorktree {
  workTree: string;
  /** The worktree's own admin dir (`<common>/worktrees/<name>`). */
  adminDir: string;
  /** The repository's common git dir. */
  commonDir: string;
}

export interface MountPlanInput {
  groveHome: string;
  /** The person's home (where their credentials live); undefined = none to hide. */
  personHome: string | undefined;
  /** `GROVE_HOME/agents/<profile>`: the agent's state dir (writable) and install (read-only). */
  agentDir: string;
  /** The agent's HOME, writable (its vendor config, caches, logins); normally inside `agentDir`. */
  agentHome: string;
  cwd: string;
  worktrees: readonly SandboxedWorktree[];
  options: SandboxOptions;
  /** Host path of the egress proxy's socket and where it appears inside. */
  egress?: { socket: string; inside: string };
  /** MCP-1: host path of Grove's MCP gateway socket and where it appears inside. */
  mcp?: { socket: string; inside: string };
  /**
   * The agent's own program (its command and absolute path arguments). Where one lives under
   * `/tmp` or `/run` — a Grove checkout in a temporary directory — the private `/tmp` would hide
   * it, so its install root is bound read-only right after, before anything is hidden on top.
   */
  program?: readonly string[];
  /** Directories (relative) of the cwd and each worktree the agent must not see: an empty one covers each that exists. */
  hiddenInWorkspace?: readonly string[];
}

const PRIVATE_ROOTS = ["/tmp", "/run"];

/**
 * The read-only binds that keep the agent's program visible under the private `/tmp` and `/run`:
 * for a path there, the outermost directory below that root holding a `node_modules` (the
 * install a Node program resolves its imports from), else the path's own directory.
 */
export function programRoots(paths: readonly string[]): string[] {
  const out = new Set<string>();
  for (const raw of paths) {
    if (!raw.startsWith("/")) continue;
    const p = resolve(raw);
    const root = PRIVATE_ROOTS.find((r) => p.startsWith(r + "/"));
    if (!root || kindOf(p) === "missing") continue;
    const parts = relative(root, p).split("/");
    let chosen: string | undefined;
    for (let i = 1; i <= parts.length; i++) {
      const dir = join(root, ...parts.slice(0, i));
      if (kindOf(join(dir, "node_modules")) === "dir") {
        chosen = dir;
        break;
      }
    }
    out.add(chosen ?? (kindOf(p) === "dir" ? p : dirname(p)));
  }
  return [...out];
}

/** SBX-1: the person's credential directories, relative to their home, never visible to an agent. */
export const PERSON_CREDENTIALS: readonly string[] = [".ssh", ".aws", join(".config", "gh"), ".gnupg"];

function kindOf(p: string): "dir" | "file" | "missing" {
  try {
    return statSync(p).isDirectory() ? "dir" : "file";
  } catch {
    return "missing";
  }
}

/** The bwrap options (everything before `--`) for one agent, from {@link MountPlanInput}. */
export function mountPlan(input: MountPlanInput): string[] {
  const a: string[] = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"];
  if (kindOf("/run") === "dir") a.push("--tmpfs", "/run");
  // Before GROVE_HOME is emptied: a home inside the program's directory stays hidden.
  for (const root of programRoots(input.program ?? [])) a.push("--ro-bind", root, root);
  a.push("--tmpfs", resolve(input.groveHome));
  const bindExisting = (flag: "--ro-bind" | "--bind", p: string) => {
    if (existsSync(p)) a.push(flag, p, p);
  };
  for (const p of input.options.readable ?? []) bindExisting("--ro-bind", resolve(p));
  // The agent's own dir is its state (the scripted agent's sessions, a bridge's logs) and holds
  // its HOME; the install in it stays read-only: Grove runs npm there, outside any sandbox.
  const agentDir = resolve(input.agentDir);
  a.push("--bind", agentDir, agentDir);
  for (const part of ["node_modules", "package.json", "package-lock.json"]) bindExisting("--ro-bind", join(agentDir, part));
  const agentHome = resolve(input.agentHome);
  if (relative(agentDir, agentHome).startsWith("..")) a.push("--bind", agentHome, agentHome);
  const commons = new Set<string>();
  for (const w of input.worktrees) {
    const common = resolve(w.commonDir);
    if (!commons.has(common)) {
      commons.add(common);
      a.push("--ro-bind", common, common);
      for (const part of ["objects", "refs", "logs"]) bindExisting("--bind", join(common, part));
    }
    a.push("--bind", resolve(w.adminDir), resolve(w.adminDir));
    // SBX-4.6: with extensions.worktreeConfig (sparse checkout sets it) git reads this file as
    // config for every command in the worktree — Grove's own included (filters, sshCommand,
    // credential helpers) — so it stays read-only like the common config. The launcher creates it.
    bindExisting("--ro-bind", join(resolve(w.adminDir), "config.worktree"));
  }
  for (const w of input.worktrees) {
    const wt = resolve(w.workTree);
    a.push("--bind", wt, wt);
    bindExisting("--ro-bind", join(wt, ".git"));
  }
  for (const p of input.options.writable ?? []) bindExisting("--bind", resolve(p));
  for (const dir of new Set([resolve(input.cwd), ...input.worktrees.map((w) => resolve(w.workTree))])) {
    for (const name of input.hiddenInWorkspace ?? []) if (kindOf(join(dir, name)) === "dir") a.push("--tmpfs", join(dir, name));
  }
  const hidden = [...(input.personHome ? PERSON_CREDENTIALS.map((c) => join(input.personHome!, c)) : []), ...(input.options.deny ?? []).map((p) => resolve(p))];
  for (const p of hidden) {
    const k = kindOf(p);
    if (k === "dir") a.push("--tmpfs", p);
    else if (k === "file") a.push("--ro-bind", "/dev/null", p);
  }
  // The empty GROVE_HOME layer itself read-only (the binds on it stay writable): a write beside
  // the worktree fails instead of landing in a throwaway directory.
  a.push("--remount-ro", resolve(input.groveHome));
  if (input.egress) a.push("--bind", input.egress.socket, input.egress.inside);
  if (input.mcp) a.push("--bind", input.mcp.socket, input.mcp.inside);
  a.push("--unshare-pid", "--unshare-net", "--unshare-ipc", "--die-with-parent", "--chdir", resolve(input.cwd));
  return a;
}
