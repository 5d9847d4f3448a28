import { execFile } from "node:child_process";
import { accessSync, closeSync, constants, existsSync, mkdirSync, openSync, readFileSync, readSync, renameSync, writeFileSync } from "node:fs";
import { delimiter, isAbsolute, join, resolve } from "node:path";
import { childEnv } from "../domain/child-env.js";
import { AppError } from "../domain/errors.js";
import type { AuthMethodInfo } from "./agent-setup.js";
import { BRIDGE_ENV, type AgentProfileConfig } from "./profiles.js";

/** AG-3: how a profile would start right now, and whether it can. */
export interface LaunchInfo {
  available: boolean;
  command: string;
  args: string[];
  /** The installed package's version (managed bridges). */
  version?: string;
  /** Why it is not available. */
  problem?: string;
  /** What makes it available. */
  fix?: string;
}

/** Where a managed bridge is installed: `GROVE_HOME/agents/<name>`. */
export function installDir(home: string, name: string): string {
  return join(home, "agents", name);
}

/** The first `PATH` entry holding an executable `cmd` (or `cmd` itself when it is a path). */
export function findCommand(cmd: string, path = process.env.PATH ?? ""): string | undefined {
  const candidates = cmd.includes("/")
    ? [resolve(cmd)]
    : path
        .split(delimiter)
        .filter(Boolean)
        .map((d) => join(d, cmd));
  for (const c of candidates) {
    try {
      accessSync(c, constants.X_OK);
      return c;
    } catch {
      // not here
    }
  }
  return undefined;
}

interface InstalledPackage {
  version: string;
  bin: string;
}

/** The bridge package installed under `dir`, with the absolute path of its bin script. */
function installedPackage(dir: string, pkg: string): InstalledPackage | undefined {
  const root = join(dir, "node_modules", ...pkg.split("/"));
  try {
    const meta = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string; bin?: string | Record<string, string> };
    const bin = typeof meta.bin === "string" ? meta.bin : meta.bin ? Object.values(meta.bin)[0] : undefined;
    if (!bin) return undefined;
    const abs = isAbsolute(bin) ? bin : join(root, bin);
    return existsSync(abs) ? { version: meta.version, bin: abs } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * AG-3: how an installed bin runs as what it is. A Node script (a `#!` line naming node, or no
 * `#!` line at all: a `.js` file npm links) runs with this server's node; anything else — a
 * native binary (opencode links a 185 MB ELF as `bin/opencode.exe`), a script for another
 * interpreter — is executed directly (it must be executable, as npm leaves bins).
 */
export function binLaunch(bin: string): { command: string; args: string[] } {
  const head = Buffer.alloc(256);
  let n: number;
  const fd = openSync(bin, "r");
  try {
    n = readSync(fd, head, 0, head.length, 0);
  } finally {
    closeSync(fd);
  }
  const text = head.subarray(0, n).toString("latin1");
  if (text.startsWith("#!")) {
    const shebang = text.slice(2).split("\n")[0] ?? "";
    return /(^|[/\s])node(\s|$)/.test(shebang) ? { command: process.execPath, args: [bin] } : { command: bin, args: [] };
  }
  const binary =
    n >= 4 &&
    (text.startsWith("\x7fELF") || [0xfeedface, 0xfeedfacf, 0xcefaedfe, 0xcffaedfe, 0xcafebabe].includes(head.readUInt32BE(0)) || text.startsWith("MZ"));
  return binary ? { command: bin, args: [] } : { command: process.execPath, args: [bin] };
}

/**
 * AG-3: a managed bridge runs from its install as what its bin is ({@link binLaunch}) (no npx: no download, no
 * registry look-up at start); it is unavailable until `grove agents install <name>` put the
 * pinned version there. Any other profile is available when its command is found.
 */
export function resolveLaunch(p: AgentProfileConfig, home: string): LaunchInfo {
  if (p.install) {
    const fix = `grove agents install ${p.name}`;
    const got = installedPackage(installDir(home, p.name), p.install.package);
    if (!got) {
      return {
        available: false,
        command: p.command,
        args: p.args,
        problem: `${p.install.package}@${p.install.version} is not installed in ${installDir(home, p.name)}`,
        fix,
      };
    }
    const run = binLaunch(got.bin);
    const info: LaunchInfo = { available: true, command: run.command, args: [...run.args, ...p.install.args], version: got.version };
    if (got.version !== p.install.version) return { ...info, problem: `installed ${got.version}, pinned ${p.install.version}`, fix };
    return info;
  }
  const found = findCommand(p.command);
  if (!found)
    return {
      available: false,
      command: p.command,
      args: p.args,
      problem: `command ${JSON.stringify(p.command)} not found`,
      fix: `install ${p.command} or change agent ${p.name} in GROVE_HOME/agents.json`,
    };
  return { available: true, command: p.command, args: p.args };
}

/** The launch of an available profile, else AppError("agent_unavailable") naming the fix (AG-3). */
export function requireLaunch(p: AgentProfileConfig, home: string): LaunchInfo {
  const l = resolveLaunch(p, home);
  if (!l.available)
    throw new AppError("agent_unavailable", `agent ${p.name} is not available: ${l.problem}; fix: ${l.fix}`, { agent: p.name, problem: l.problem, fix: l.fix });
  return l;
}

/**
 * AG-3: installs the profile's pinned bridge with npm into `GROVE_HOME/agents/<name>`.
 * Idempotent: an install of the pinned version is left alone. `npm` is the one on PATH
 * (override with `npmCommand`); its registry, cache, proxy and CA settings are the person's own
 * (the variables of `BRIDGE_ENV` pass, on top of the SEC-7 allow-list).
 */
export async function installAgent(
  p: AgentProfileConfig,
  home: string,
  opts: { npmCommand?: string; timeoutMs?: number } = {},
): Promise<{ version: string; installed: boolean; dir: string }> {
  if (!p.install) throw new AppError("invalid_request", `agent ${p.name} is not a managed bridge; install its command yourself`, { agent: p.name });
  const dir = installDir(home, p.name);
  const have = installedPackage(dir, p.install.package);
  if (have?.version === p.install.version) return { version: have.version, installed: false, dir };
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const manifest = join(dir, "package.json");
  if (!existsSync(manifest)) writeFileSync(manifest, `${JSON.stringify({ name: `grove-agent-${p.name}`, private: true }, null, 2)}\n`, { mode: 0o600 });
  const spec = `${p.install.package}@${p.install.version}`;
  await new Promise<void>((resolvePromise, reject) => {
    execFile(
      opts.npmCommand ?? "npm",
      ["install", "--no-audit", "--no-fund", "--save-exact", "--loglevel=error", spec],
      { cwd: dir, env: childEnv(process.env, {}, BRIDGE_ENV), timeout: opts.timeoutMs ?? 600_000, maxBuffer: 16 * 1024 * 1024 },
      (err, _stdout, stderr) => {
        if (err)
          reject(
            new AppError(
              "agent_unavailable",
              `npm install ${spec} failed: ${String(stderr || err.message)
                .trim()
                .slice(-2000)}`,
              { agent: p.name, fix: `check npm's registry access, then grove agents install ${p.name}` },
            ),
          );
        else resolvePromise();
      },
    );
  });
  const got = installedPackage(dir, p.install.package);
  if (!got) throw new AppError("agent_unavailable", `npm installed ${spec} but its bin script is missing`, { agent: p.name });
  return { version: got.version, installed: true, dir };
}

/** AG-3: what an agent said in its last `initialize` (cached per profile in GROVE_HOME/agents). */
export interface InitializeInfo {
  agentName?: string;
  version?: string;
  authMethods: AuthMethodInfo[];
  at: string;
}

function cacheFile(home: string, name: string): string {
  return join(home, "agents", `${name}.initialize.json`);
}

/** The cached `initialize` facts of a profile, if any. */
export function readInitializeCache(home: string, name: string): InitializeInfo | undefined {
  try {
    return JSON.parse(readFileSync(cacheFile(home, name), "utf8")) as InitializeInfo;
  } catch {
    return undefined;
  }
}

/** Caches `initialize` facts (atomic replace; a failed write is only a lost cache). */
export function writeInitializeCache(home: string, name: string, info: InitializeInfo): void {
  try {
    mkdirSync(join(home, "agents"), { recursive: true, mode: 0o700 });
    const tmp = `${cacheFile(home, name)}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(info), { mode: 0o600 });
    renameSync(tmp, cacheFile(home, name));
  } catch {
    // the cache is an optimisation of GET /agents
  }
}
