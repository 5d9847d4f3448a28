import { lstatSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { randomBytes } from "node:crypto";
import { ConfigError, DEFAULT_BWRAP, parsed, raw } from "./config-schema.js";

export { ConfigError, DEFAULT_BWRAP } from "./config-schema.js";

/** Start-up configuration from the `GROVE_*` variables of config-schema.ts (README "Configuration"). */
export interface Config {
  home: string;
  host: string;
  port: number;
  databaseUrl: string | undefined;
  authToken: string | undefined;
  runnerId: string;
  logLevel: string;
  /** SEC-5: `GROVE_ALLOWED_HOSTS`, extra Host names beyond loopback and the listen address. */
  allowedHosts: string[];
  /** SEC-5: `GROVE_ALLOWED_ORIGINS`, extra browser origins beyond the server's own. */
  allowedOrigins: string[];
  /**
   * `GROVE_GIT_AUTHOR_NAME` / `GROVE_GIT_AUTHOR_EMAIL`: the identity of commits Grove makes for
   * the person (commit, update from base, merge) where git has none configured; both or neither.
   */
  gitIdentity: { name: string; email: string } | undefined;
  /** LIVE-5: GROVE_TRASH_RETENTION_MS (default 7 days; 0 purges a deleted task at once). */
  trashRetentionMs: number;
  /** RR-8: GROVE_PROVIDER_PLUGINS, `:`-separated module paths (checked when they load). */
  providerPlugins: string | undefined;
  /** RR-4/5: GROVE_REFRESH_TIMEOUT_MS / GROVE_CLONE_TIMEOUT_MS. */
  refreshTimeoutMs: number;
  cloneTimeoutMs: number;
  /** GROVE_EDITOR: the "open in editor" command; undefined = not configured. */
  editor: string | undefined;
  /** USE-2: GROVE_DAILY_BUDGET as written (`<amount>[usd|tokens]`, or both); undefined = no daily cap. */
  dailyBudget: string | undefined;
  /** WT-6: GROVE_GIT_MAX_CONCURRENCY. */
  gitMaxConcurrency: number;
  /** SEC-8: GROVE_MAX_WS_CLIENTS / GROVE_WS_MAX_BUFFERED_BYTES. */
  wsLimits: { maxClients: number; maxBufferedBytes: number };
  /** MCP-2.4: GROVE_MCP_CALLS_PER_MINUTE, per session. */
  mcpCallsPerMinute: number;
  /** SBX-3 / TERM-6: GROVE_BWRAP, the bubblewrap of agents and terminals (an absolute path or a name in `PATH`). */
  bwrap: string;
  /** The use cases' tuning (orchestrator Deps.tuning). */
  tuning: Tuning;
  /** GROVE_FAULT: the crash tests' fault points (orchestrator/fault-points.ts); undefined = inert. */
  fault: string | undefined;
}

/** Values the use cases read, passed down in `Deps.tuning` (defaults when a test builds Deps without them). */
export interface Tuning {
  /** RV-5.3: GROVE_PR_REFRESH_MS, the background pull-request refresh; 0 = off. */
  prRefreshMs: number;
  /** GROVE_REVIEW_DONE_ON_MERGE: whether a merge moves the task to `done`. */
  reviewDoneOnMerge: boolean;
  /** WT-9: GROVE_SETUP_SCRIPT_TIMEOUT_MS. */
  setupScriptTimeoutMs: number;
  /** CHG-3: GROVE_WATCH_MAX_DIRS, directories watched per worktree. */
  watchMaxDirs: number;
  /** WT-10: GROVE_WORKTREE_POOL_SIZE / GROVE_WORKTREE_POOL_MAX_MB; size 0 = no pool. */
  worktreePool?: { size: number; maxBytes: number };
}

export const DEFAULT_TUNING: Tuning = { prRefreshMs: 60_000, reviewDoneOnMerge: true, setupScriptTimeoutMs: 10 * 60_000, watchMaxDirs: 4000 };

/** SEC-1: the shortest GROVE_AUTH_TOKEN accepted for a bind beyond loopback. */
export const MIN_TOKEN_LENGTH = 16;

function list(value: string | undefined): string[] {
  return (value ?? "")
    .split(",")
    .map((s) => s.trim().toLowerCase().replace(/\/+$/, ""))
    .filter((s) => s !== "");
}

/**
 * A secret from a file named by `*_FILE` (`GROVE_AUTH_TOKEN_FILE`, `GROVE_CLUSTER_SECRET_FILE`):
 * a regular file (not a symlink) that neither group nor others may read; its first line, trimmed.
 */
export function readSecretFile(variable: string, path: string): string {
  let st;
  try {
    st = lstatSync(path);
  } catch {
    throw new ConfigError(`${variable}: ${path} does not exist`);
  }
  if (!st.isFile()) throw new ConfigError(`${variable}: ${path} must be a regular file (not a link or a directory)`);
  if ((st.mode & 0o077) !== 0) throw new ConfigError(`${variable}: ${path} is readable by other users (mode ${(st.mode & 0o777).toString(8)}); chmod 600 it`);
  const value = readFileSync(path, "utf8").split("\n")[0]!.trim();
  if (value === "") throw new ConfigError(`${variable}: ${path} is empty`);
  return value;
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost)$/;

/** The name of a `GROVE_ALLOWED_HOSTS` entry without its port or IPv6 brackets. */
function hostName(entry: string): string {
  const m = /^\[([^\]]+)\](?::\d+)?$/.exec(entry) ?? /^([^:]+)(?::\d+)?$/.exec(entry);
  return (m?.[1] ?? entry).toLowerCase();
}

/** `GROVE_HOME` as an absolute path (default `~/.grove`), created `0700` if missing. */
export function homeOf(env: NodeJS.ProcessEnv = process.env): string {
  const home = resolve(raw(env, "GROVE_HOME") ?? join(homedir(), ".grove"));
  mkdirSync(home, { recursive: true, mode: 0o700 });
  return home;
}

/** CFG-1: the server's variables, parsed by their schema (config-schema.ts); a bad value throws ConfigError naming it. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const home = resolve(raw(env, "GROVE_HOME") ?? join(homedir(), ".grove"));
  const host = raw(env, "GROVE_HOST") ?? "127.0.0.1";
  const port = parsed(env, "GROVE_PORT") ?? 7420;
  const databaseUrl = parsed(env, "GROVE_DATABASE_URL");
  const tokenText = raw(env, "GROVE_AUTH_TOKEN");
  const tokenFile = raw(env, "GROVE_AUTH_TOKEN_FILE");
  if (tokenText && tokenFile) throw new ConfigError("set GROVE_AUTH_TOKEN or GROVE_AUTH_TOKEN_FILE, not both");
  // SBX-5: the file keeps the token out of every process environment (see the ADR on the person channel).
  const authToken = tokenText ?? (tokenFile ? readSecretFile("GROVE_AUTH_TOKEN_FILE", tokenFile) : undefined);
  // SEC-1: a non-loopback bind without a token would expose every worktree to the network.
  if (!LOOPBACK.test(host) && !authToken) throw new ConfigError(`refusing to bind ${host} without GROVE_AUTH_TOKEN`);
  if (!LOOPBACK.test(host) && authToken && authToken.length < MIN_TOKEN_LENGTH) {
    throw new ConfigError(`refusing to bind ${host} with a GROVE_AUTH_TOKEN shorter than ${MIN_TOKEN_LENGTH} characters`);
  }
  // SEC-1/WEB-50: a Host name beyond loopback means requests arrive through a tunnel or proxy the
  // person runs, from outside this machine: as with a non-loopback bind, only with a token.
  const allowedHosts = list(raw(env, "GROVE_ALLOWED_HOSTS"));
  const remoteNames = allowedHosts.filter((h) => !LOOPBACK.test(hostName(h)));
  if (remoteNames.length > 0 && (!authToken || authToken.length < MIN_TOKEN_LENGTH)) {
    throw new ConfigError(
      `GROVE_ALLOWED_HOSTS lets requests in from ${remoteNames.join(", ")} (a tunnel or proxy): set GROVE_AUTH_TOKEN or GROVE_AUTH_TOKEN_FILE (at least ${MIN_TOKEN_LENGTH} characters) too`,
    );
  }
  const gitIdentity = identityFrom(env);
  const config: Omit<Config, "runnerId"> = {
    home,
    host,
    port,
    databaseUrl,
    authToken,
    logLevel: parsed(env, "GROVE_LOG_LEVEL") ?? "info",
    allowedHosts,
    allowedOrigins: list(raw(env, "GROVE_ALLOWED_ORIGINS")),
    gitIdentity,
    trashRetentionMs: parsed(env, "GROVE_TRASH_RETENTION_MS") ?? 7 * 24 * 60 * 60 * 1000,
    providerPlugins: raw(env, "GROVE_PROVIDER_PLUGINS"),
    refreshTimeoutMs: parsed(env, "GROVE_REFRESH_TIMEOUT_MS") ?? 120_000,
    cloneTimeoutMs: parsed(env, "GROVE_CLONE_TIMEOUT_MS") ?? 1_800_000,
    editor: raw(env, "GROVE_EDITOR"),
    dailyBudget: parsed(env, "GROVE_DAILY_BUDGET"),
    gitMaxConcurrency: parsed(env, "GROVE_GIT_MAX_CONCURRENCY") ?? 8,
    mcpCallsPerMinute: parsed(env, "GROVE_MCP_CALLS_PER_MINUTE") ?? 120,
    bwrap: parsed(env, "GROVE_BWRAP") ?? DEFAULT_BWRAP,
    fault: raw(env, "GROVE_FAULT"),
    wsLimits: { maxClients: parsed(env, "GROVE_MAX_WS_CLIENTS") ?? 64, maxBufferedBytes: parsed(env, "GROVE_WS_MAX_BUFFERED_BYTES") ?? 1024 * 1024 },
    tuning: {
      prRefreshMs: parsed(env, "GROVE_PR_REFRESH_MS") ?? DEFAULT_TUNING.prRefreshMs,
      reviewDoneOnMerge: parsed(env, "GROVE_REVIEW_DONE_ON_MERGE") ?? DEFAULT_TUNING.reviewDoneOnMerge,
      setupScriptTimeoutMs: parsed(env, "GROVE_SETUP_SCRIPT_TIMEOUT_MS") ?? DEFAULT_TUNING.setupScriptTimeoutMs,
      watchMaxDirs: parsed(env, "GROVE_WATCH_MAX_DIRS") ?? DEFAULT_TUNING.watchMaxDirs,
      worktreePool: { size: parsed(env, "GROVE_WORKTREE_POOL_SIZE") ?? 0, maxBytes: (parsed(env, "GROVE_WORKTREE_POOL_MAX_MB") ?? 4096) * 1024 * 1024 },
    },
  };
  // Every value checked, the home is made (and the runner id stored in it) last.
  mkdirSync(home, { recursive: true, mode: 0o700 });
  return { ...config, runnerId: raw(env, "GROVE_RUNNER_ID") ?? storedRunnerId(home) };
}

function identityFrom(env: NodeJS.ProcessEnv): Config["gitIdentity"] {
  const name = raw(env, "GROVE_GIT_AUTHOR_NAME")?.trim();
  const email = raw(env, "GROVE_GIT_AUTHOR_EMAIL")?.trim();
  if (!name && !email) return undefined;
  if (!name || !email) throw new ConfigError("GROVE_GIT_AUTHOR_NAME and GROVE_GIT_AUTHOR_EMAIL go together: set both or neither");
  // git refuses `<`, `>` and line breaks in an identity; an address needs its `@`.
  if (/[<>\n\r\0]/.test(name + email) || !/^[^\s@]+@[^\s@]+$/.test(email)) {
    throw new ConfigError("GROVE_GIT_AUTHOR_NAME / GROVE_GIT_AUTHOR_EMAIL must be a plain name and an e-mail address (no <, >, line breaks)");
  }
  return { name, email };
}

/** ST-3: a stable runner id, derived once and kept in GROVE_HOME. */
function storedRunnerId(home: string): string {
  const file = join(home, "runner-id");
  try {
    const id = readFileSync(file, "utf8").trim();
    if (id) return id;
  } catch {
    // first start
  }
  const id = `runner_${randomBytes(6).toString("hex")}`;
  writeFileSync(file, id + "\n", { mode: 0o600 });
  return id;
}
