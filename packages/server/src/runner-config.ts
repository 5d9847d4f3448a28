import { ConfigError, readSecretFile } from "./config.js";

/** Issue 15: how this server process announces itself in the runners registry. */
export interface RunnerConfig {
  /** `GROVE_RUNNER_URL`; undefined = the server's own listen URL, known once it listens. */
  url: string | undefined;
  /** `GROVE_RUNNER_LABELS`, comma-separated. */
  labels: string[];
  /** `GROVE_RUNNER_MAX_AGENTS`; null = no limit. */
  maxAgents: number | null;
  /** `GROVE_RUNNER_HEARTBEAT_MS` (default 5000); offline after 3 × this. */
  heartbeatMs: number;
  /** `GROVE_CLUSTER_SECRET`: authenticates runner-to-runner requests; never logged nor shown. */
  clusterSecret: string | undefined;
  /** `GROVE_FORWARD_TIMEOUT_MS` (default 120000): a forwarded request without an answer by then fails `runner_unreachable`. */
  forwardTimeoutMs: number;
}

export const DEFAULT_HEARTBEAT_MS = 5000;
/** Below this, heartbeats would load the database for nothing (tests use 100–300). */
export const MIN_HEARTBEAT_MS = 50;
const MAX_HEARTBEAT_MS = 600_000;
const LABEL = /^[a-z0-9][a-z0-9._-]{0,63}$/;

function positiveInt(name: string, text: string, min: number, max: number): number {
  const n = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(n) || n < min || n > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(text)}`);
  }
  return n;
}

/** Reads and validates the runner variables; a bad value stops the start-up with ConfigError. */
export function loadRunnerConfig(env: NodeJS.ProcessEnv): RunnerConfig {
  let url: string | undefined;
  const rawUrl = env.GROVE_RUNNER_URL?.trim();
  if (rawUrl) {
    let parsed: URL;
    try {
      parsed = new URL(rawUrl);
    } catch {
      throw new ConfigError(`GROVE_RUNNER_URL must be an http(s) URL, got ${JSON.stringify(rawUrl)}`);
    }
    if (!["http:", "https:"].includes(parsed.protocol)) throw new ConfigError(`GROVE_RUNNER_URL must be an http(s) URL, got ${JSON.stringify(rawUrl)}`);
    // The URL is shown to every client of GET /runners: credentials, a query or a fragment have no place in it.
    if (parsed.username || parsed.password || parsed.search || parsed.hash) {
      throw new ConfigError("GROVE_RUNNER_URL must be a plain base URL (no credentials, query or fragment)");
    }
    // SBX-5: forwards carry requests and answers (prompts, diffs) in the clear over http://;
    // only loopback, or a network the operator vouches for with GROVE_RUNNER_ALLOW_HTTP=1.
    const loopback = /^(127\.\d+\.\d+\.\d+|\[::1\]|localhost)$/.test(parsed.hostname);
    if (parsed.protocol === "http:" && !loopback && env.GROVE_RUNNER_ALLOW_HTTP !== "1") {
      throw new ConfigError(`GROVE_RUNNER_URL ${parsed.host} is plain http:// beyond loopback: use https://, or set GROVE_RUNNER_ALLOW_HTTP=1 for a private network you trust`);
    }
    url = parsed.toString().replace(/\/+$/, "");
  }
  const labels = (env.GROVE_RUNNER_LABELS ?? "")
    .split(",")
    .map((s) => s.trim().toLowerCase())
    .filter((s) => s !== "");
  for (const l of labels) {
    if (!LABEL.test(l)) throw new ConfigError(`GROVE_RUNNER_LABELS: ${JSON.stringify(l)} is not a label (letters, digits, . _ -; at most 64 characters)`);
  }
  const maxText = env.GROVE_RUNNER_MAX_AGENTS?.trim();
  const maxAgents = maxText ? positiveInt("GROVE_RUNNER_MAX_AGENTS", maxText, 1, 10_000) : null;
  const hbText = env.GROVE_RUNNER_HEARTBEAT_MS?.trim();
  const heartbeatMs = hbText ? positiveInt("GROVE_RUNNER_HEARTBEAT_MS", hbText, MIN_HEARTBEAT_MS, MAX_HEARTBEAT_MS) : DEFAULT_HEARTBEAT_MS;
  if (env.GROVE_CLUSTER_SECRET && env.GROVE_CLUSTER_SECRET_FILE) throw new ConfigError("set GROVE_CLUSTER_SECRET or GROVE_CLUSTER_SECRET_FILE, not both");
  const secret = env.GROVE_CLUSTER_SECRET || (env.GROVE_CLUSTER_SECRET_FILE ? readSecretFile("GROVE_CLUSTER_SECRET_FILE", env.GROVE_CLUSTER_SECRET_FILE) : undefined);
  // The value itself is never echoed: a start-up error must not print a secret.
  if (secret !== undefined && secret !== "" && (secret.length < 16 || /[\s\0]/.test(secret))) {
    throw new ConfigError("GROVE_CLUSTER_SECRET must be at least 16 characters without spaces or control characters");
  }
  const ftText = env.GROVE_FORWARD_TIMEOUT_MS?.trim();
  const forwardTimeoutMs = ftText ? positiveInt("GROVE_FORWARD_TIMEOUT_MS", ftText, 100, 3_600_000) : 120_000;
  return { url, labels: [...new Set(labels)], maxAgents, heartbeatMs, clusterSecret: secret || undefined, forwardTimeoutMs };
}
