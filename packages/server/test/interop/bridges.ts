import { existsSync, mkdirSync, symlinkSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { installAgent } from "../../src/agents/agent-install.js";
import { builtInProfiles } from "../../src/agents/profiles.js";

/**
 * The interop suite's cache of pinned bridges: a GROVE_HOME-shaped directory
 * (`<cache>/agents/<name>`) kept between runs (`GROVE_INTEROP_CACHE`, default
 * `~/.cache/grove-interop`). Installing is npm's job and is idempotent: a cached pinned
 * version is used as is. An install that fails throws — the suite fails, never skips.
 */
export const INTEROP_CACHE = process.env.GROVE_INTEROP_CACHE ?? join(homedir(), ".cache", "grove-interop");

export async function ensureBridge(name: "claude" | "codex" | "gemini" | "opencode"): Promise<void> {
  const profile = builtInProfiles({ home: INTEROP_CACHE }).find((p) => p.name === name);
  if (!profile) throw new Error(`no built-in profile ${name}`);
  await installAgent(profile, INTEROP_CACHE);
}

/** Makes the cached bridge the install of `home` (what `grove agents install` would have put there). */
export function linkBridge(home: string, name: string): void {
  mkdirSync(join(home, "agents"), { recursive: true });
  const target = join(home, "agents", name);
  if (!existsSync(target)) symlinkSync(join(INTEROP_CACHE, "agents", name), target);
}
