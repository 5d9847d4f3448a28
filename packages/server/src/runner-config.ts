import { readSecretFile } from "./config.js";
import { ConfigError, parsed, raw } from "./config-schema.js";

/** How this server process announces itself in the runners registry. */
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
const LABEL = /^[a-z0-9][a-z0-9._-]{0,63}$/;

/** Reads and validates the runner variables; a bad value stops the start-up with ConfigError. */
export function loadRunnerConfig(env: NodeJS.ProcessEnv): RunnerConfig {
  let url: string | undefined;
  const rawUrl = raw(env, "GROVE_RUNNER_URL")?.trim();
  if (rawUrl) {
    let u: URL;
    try {
      u = new URL(rawUrl);
    } catch {
      throw new ConfigError(`GROVE_RUNNER_URL must be an http(s) URL, got ${JSON.stringify(rawUrl)}`);
    }
    if (!["http:", "https:"].includes(u.protocol)) throw new ConfigError(`GROVE_RUNNER_URL must be an http(s) URL, got ${JSON.stringify(rawUrl)}`);
    // The URL is shown to every client of GET /runners: credentials, a query or a fragment have no place in it.
    if (u.username || u.password || u.search || u.hash) {
      throw new ConfigError("GROVE_RUNNER_URL must be a plain base URL (no credentials, query or fragment)");
    }
    // SBX-5: forwards carry requests and answers (prompts, diffs) in the clear over http://;
    // only loopback, or a network the operator vouches for with GROVE_RUNNER_ALLOW_HTTP=1.
    const loopback = /^(127\.\d+\.\d+\.\d+|\[::1\]|localhost)$/.test(u.hostname);
    if (u.protocol === "http:" && !loopback && raw(env, "GROVE_RUNNER_ALLOW_HTTP") !== "1") {
      throw new ConfigError(
        `GROVE_RUNNER_URL ${u.host} is plain http:// beyond loopback: use https://, or set GROVE_RUNNER_ALLOW_HTTP=1 for a private network you trust`,
      );
    }
    url = u.toString().replace(/\/+$/, "");
  }
  const labels = (raw(env, "GROVE_RUNNER_LABELS") ?? "")
    .split(",")
    .map((s) => s.trim().toLowerCase())
    .filter((s) => s !== "");
  for (const l of labels) {
    if (!LABEL.test(l)) throw new ConfigError(`GROVE_RUNNER_LABELS: ${JSON.stringify(l)} is not a label (letters, digits, . _ -; at most 64 characters)`);
  }
  const maxAgents = parsed(env, "GROVE_RUNNER_MAX_AGENTS") ?? null;
  const heartbeatMs = parsed(env, "GROVE_RUNNER_HEARTBEAT_MS") ?? DEFAULT_HEARTBEAT_MS;
  const secretText = raw(env, "GROVE_CLUSTER_SECRET");
  const secretFile = raw(env, "GROVE_CLUSTER_SECRET_FILE");
  if (secretText && secretFile) throw new ConfigError("set GROVE_CLUSTER_SECRET or GROVE_CLUSTER_SECRET_FILE, not both");
  const secret = secretText ?? (secretFile ? readSecretFile("GROVE_CLUSTER_SECRET_FILE", secretFile) : undefined);
  // The value itself is never echoed: a start-up error must not print a secret.
  if (secret !== undefined && secret !== "" && (secret.length < 16 || /[\s\0]/.test(secret))) {
    throw new ConfigError("GROVE_CLUSTER_SECRET must be at least 16 characters without spaces or control characters");
  }
  const forwardTimeoutMs = parsed(env, "GROVE_FORWARD_TIMEOUT_MS") ?? 120_000;
  return { url, labels: [...new Set(labels)], maxAgents, heartbeatMs, clusterSecret: secret || undefined, forwardTimeoutMs };
}
