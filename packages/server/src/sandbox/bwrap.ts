import { spawnSync } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";

/**
 * SBX-3: where bubblewrap is and whether it works on this machine. The binary is given
 * (`Config.bwrap`, from `GROVE_BWRAP`): an absolute path, or a name looked up in `PATH`. A binary that
 * exists is also probed once (a kernel without unprivileged namespaces, or a container that
 * forbids them, has bwrap installed but cannot run it), and the answer is cached per path.
 */
export type BwrapStatus = { available: true; path: string } | { available: false; reason: string; fix: string };

export const BWRAP_FIX =
  'install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap) or point GROVE_BWRAP at it; or set "sandbox": "off" in the agent\'s profile in GROVE_HOME/agents.json to run it unconfined';

const probed = new Map<string, BwrapStatus>();

function executable(p: string): boolean {
  try {
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function locate(name: string, path: string | undefined): string | undefined {
  if (isAbsolute(name) || name.includes("/")) return executable(name) ? name : undefined;
  for (const dir of (path ?? "").split(delimiter)) {
    if (dir && executable(join(dir, name))) return join(dir, name);
  }
  return undefined;
}

/** The bwrap `wanted` names (a path, or a name looked up in `searchPath`), probed once per path. */
export function bwrapStatus(wanted: string, searchPath: string | undefined): BwrapStatus {
  const path = locate(wanted, searchPath);
  if (path === undefined) return { available: false, reason: `bubblewrap (${wanted}) was not found`, fix: BWRAP_FIX };
  const cached = probed.get(path);
  if (cached) return cached;
  // The same namespaces every agent gets: if this fails, no agent could start confined.
  const r = spawnSync(
    path,
    ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--die-with-parent", "--", "/bin/true"],
    {
      stdio: ["ignore", "ignore", "pipe"],
      timeout: 10_000,
      encoding: "utf8",
    },
  );
  const status: BwrapStatus =
    r.status === 0
      ? { available: true, path }
      : {
          available: false,
          reason: `bubblewrap at ${path} cannot create a sandbox here: ${(r.stderr || r.error?.message || `exit ${r.status}`).trim()}`,
          fix: BWRAP_FIX,
        };
  probed.set(path, status);
  return status;
}
