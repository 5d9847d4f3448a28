import { lstatSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { randomBytes } from "node:crypto";

/** Start-up configuration (CONTRACT.md "Start-up and configuration"). */
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
}

/** SEC-1: the shortest GROVE_AUTH_TOKEN accepted for a bind beyond loopback. */
export const MIN_TOKEN_LENGTH = 16;

function list(value: string | undefined): string[] {
  return (value ?? "")
    .split(",")
    .map((s) => s.trim().toLowerCase().replace(/\/+$/, ""))
    .filter((s) => s !== "");
}

export class ConfigError extends Error {}

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

/** `GROVE_HOME` as an absolute path (default `~/.grove`), created `0700` if missing. */
export function homeOf(env: NodeJS.ProcessEnv = process.env): string {
  const home = resolve(env.GROVE_HOME || join(homedir(), ".grove"));
  mkdirSync(home, { recursive: true, mode: 0o700 });
  return home;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const home = resolve(env.GROVE_HOME || join(homedir(), ".grove"));
  const host = env.GROVE_HOST || "127.0.0.1";
  const portText = env.GROVE_PORT ?? "7420";
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError(`GROVE_PORT must be a port number, got ${JSON.stringify(portText)}`);
  const databaseUrl = env.GROVE_DATABASE_URL || undefined;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) throw new ConfigError("GROVE_DATABASE_URL must be a postgres:// URL");
  if (env.GROVE_AUTH_TOKEN && env.GROVE_AUTH_TOKEN_FILE) throw new ConfigError("set GROVE_AUTH_TOKEN or GROVE_AUTH_TOKEN_FILE, not both");
  // SBX-5: the file keeps the token out of every process environment (see the ADR on the person channel).
  const authToken = env.GROVE_AUTH_TOKEN || (env.GROVE_AUTH_TOKEN_FILE ? readSecretFile("GROVE_AUTH_TOKEN_FILE", env.GROVE_AUTH_TOKEN_FILE) : undefined);
  // SEC-1: a non-loopback bind without a token would expose every worktree to the network.
  if (!LOOPBACK.test(host) && !authToken) throw new ConfigError(`refusing to bind ${host} without GROVE_AUTH_TOKEN`);
  if (!LOOPBACK.test(host) && authToken && authToken.length < MIN_TOKEN_LENGTH) {
    throw new ConfigError(`refusing to bind ${host} with a GROVE_AUTH_TOKEN shorter than ${MIN_TOKEN_LENGTH} characters`);
  }
  const gitIdentity = identityFrom(env);
  mkdirSync(home, { recursive: true, mode: 0o700 });
  return {
    home,
    host,
    port,
    databaseUrl,
    authToken,
    runnerId: env.GROVE_RUNNER_ID || storedRunnerId(home),
    logLevel: env.GROVE_LOG_LEVEL || "info",
    allowedHosts: list(env.GROVE_ALLOWED_HOSTS),
    allowedOrigins: list(env.GROVE_ALLOWED_ORIGINS),
    gitIdentity,
    trashRetentionMs: trashRetentionFrom(env),
  };
}

function trashRetentionFrom(env: NodeJS.ProcessEnv): number {
  const raw = env.GROVE_TRASH_RETENTION_MS;
  const week = 7 * 24 * 60 * 60 * 1000;
  if (raw === undefined || raw.trim() === "") return week;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) throw new Error(`GROVE_TRASH_RETENTION_MS must be a number of milliseconds ≥ 0, not ${JSON.stringify(raw)}`);
  return Math.floor(n);
}

function identityFrom(env: NodeJS.ProcessEnv): Config["gitIdentity"] {
  const name = env.GROVE_GIT_AUTHOR_NAME?.trim();
  const email = env.GROVE_GIT_AUTHOR_EMAIL?.trim();
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
