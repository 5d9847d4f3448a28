import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { builtInProfiles, type AgentProfileConfig } from "../../src/agents/profiles.js";
import type { AgentCallbacks, AgentEvent, PermissionAsk } from "../../src/agents/runtime.js";

/** Real temp directories and real git for the agent tests; removed by {@link cleanup}. */
const made: string[] = [];

export function tempDir(prefix = "grove-agents-"): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  made.push(dir);
  return dir;
}

export function cleanup(): void {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
}

export function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
}

/** A git repository with one commit on `main` (identity configured locally). */
export function makeRepo(dir = tempDir("grove-repo-")): string {
  mkdirSync(dir, { recursive: true });
  git(dir, "init", "-q", "-b", "main");
  git(dir, "config", "user.name", "Test");
  git(dir, "config", "user.email", "test@example.invalid");
  writeFileSync(join(dir, "README.md"), "hello\n");
  git(dir, "add", "-A");
  git(dir, "commit", "-q", "-m", "initial");
  return dir;
}

/** The built-in scripted profile with its state under `home`. */
export function scriptedProfile(home: string, overrides: Partial<AgentProfileConfig> = {}): AgentProfileConfig {
  const p = builtInProfiles({ home }).find((x) => x.name === "scripted");
  if (!p) throw new Error("no scripted profile");
  return { ...p, ...overrides, env: { ...p.env, ...overrides.env } };
}

/** Callbacks that record everything; permission answers come from `answer`. */
export class Recorder implements AgentCallbacks {
  readonly events: AgentEvent[] = [];
  readonly asks: PermissionAsk[] = [];
  readonly exits: { code: number | null; signal: string | null; duringTurn: boolean }[] = [];
  answer: (ask: PermissionAsk) => Promise<{ optionId: string } | "cancelled"> = async () => "cancelled";
  private waiters: (() => void)[] = [];

  onEvent(e: AgentEvent): void {
    this.events.push(e);
    this.wake();
  }

  onPermission(ask: PermissionAsk): Promise<{ optionId: string } | "cancelled"> {
    this.asks.push(ask);
    this.wake();
    return this.answer(ask);
  }

  onExit(info: { code: number | null; signal: string | null; duringTurn: boolean }): void {
    this.exits.push(info);
    this.wake();
  }

  /** Resolves when `pred` holds (checked after every callback), rejects after `ms`. */
  async until(pred: () => boolean, ms = 10_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!pred()) {
      if (Date.now() > deadline) throw new Error("condition not met in time");
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 50);
      });
    }
  }

  /** Agent message text, concatenated. */
  text(role: "agent" | "thought" | "user" = "agent"): string[] {
    return this.events.flatMap((e) => (e.kind === "message_chunk" && e.role === role ? [e.text] : []));
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }
}

/** Parsed raw ACP log lines. */
export function readLog(
  file: string,
): { at: string; dir: "in" | "out"; msg: { id?: number; method?: string; params?: Record<string, unknown>; result?: unknown } }[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

/**
 * Running (non-zombie) processes whose working directory `cwdMatches` accepts: the agents of a
 * workspace, or whatever one of them left behind. Processes gone meanwhile, or not ours to
 * read, are left out.
 */
export function processesWithCwd(cwdMatches: (cwd: string) => boolean): number[] {
  const pids: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (cwdMatches(readlinkSync(`/proc/${name}/cwd`)) && !isGone(Number(name))) pids.push(Number(name));
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return pids;
}

/** True when no running (non-zombie) process has this pid; also checks `kill(pid, 0)`. */
export function isGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "ESRCH";
  }
  // kill(0) also succeeds on a zombie that nobody reaped yet: that process has exited.
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) === "Z";
  } catch {
    return true;
  }
}
