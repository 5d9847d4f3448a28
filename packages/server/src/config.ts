import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
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
}

export class ConfigError extends Error {}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost)$/;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const home = resolve(env.GROVE_HOME || join(homedir(), ".grove"));
  const host = env.GROVE_HOST || "127.0.0.1";
  const portText = env.GROVE_PORT ?? "7420";
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError(`GROVE_PORT must be a port number, got ${JSON.stringify(portText)}`);
  const databaseUrl = env.GROVE_DATABASE_URL || undefined;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) throw new ConfigError("GROVE_DATABASE_URL must be a postgres:// URL");
  const authToken = env.GROVE_AUTH_TOKEN || undefined;
  // SEC-1: a non-loopback bind without a token would expose every worktree to the network.
  if (!LOOPBACK.test(host) && !authToken) throw new ConfigError(`refusing to bind ${host} without GROVE_AUTH_TOKEN`);
  mkdirSync(home, { recursive: true });
  return { home, host, port, databaseUrl, authToken, runnerId: env.GROVE_RUNNER_ID || storedRunnerId(home), logLevel: env.GROVE_LOG_LEVEL || "info" };
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
