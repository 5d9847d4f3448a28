import { readFileSync } from "node:fs";
import { hostname } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { pino } from "pino";
import { AgentRuntime } from "./agents/runtime.js";
import { builtInProfiles } from "./agents/profiles.js";
import { loadProfiles } from "./agents/profile-config.js";
import type { InjectOptions, LightMyRequestResponse } from "fastify";
import { buildApi, type RouteInfo } from "./api/server.js";
import { ConfigError, homeOf, loadConfig, type Config } from "./config.js";
import { refuseUnknownVariables } from "./config-schema.js";
import { AlreadyRunningError, lockHome, type HomeLock } from "./home-lock.js";
import { ensurePersonToken, scrubStartEnvironment } from "./start-secrets.js";
import { claimRunner, type RunnerClaim } from "./store/runner-claim.js";
import { EventBus } from "./domain/event-bus.js";
import { GitRunner } from "./git/runner.js";
import { WorktreeManager } from "./git/worktrees.js";
import { usageSettingsFrom } from "./orchestrator/usage/usage-settings.js";
import { LaunchRegistry } from "./orchestrator/launch-registry.js";
import { Orchestrator } from "./orchestrator/orchestrator.js";
import { armFaultPoints } from "./orchestrator/fault-points.js";
import type { Deps } from "./orchestrator/context.js";
import { WorktreePool } from "./orchestrator/worktrees/pool.js";
import { openStore } from "./store/open.js";
import { openPgEventRelay, type EventRelay } from "./store/event-relay.js";
import { connectEventRelay } from "./orchestrator/runners/event-relay.js";
import { loadProviderRegistry } from "./providers/plugins.js";
import { secureHome } from "./home-mode.js";
import { loadRunnerConfig } from "./runner-config.js";
import { McpTokens } from "./mcp/tokens.js";
import { McpGateway, mcpSocketPath } from "./mcp/gateway.js";
import { clearEgressRunDir } from "./sandbox/egress-proxy.js";

const here = dirname(fileURLToPath(import.meta.url));
export const VERSION: string = (JSON.parse(readFileSync(join(here, "..", "package.json"), "utf8")) as { version: string }).version;

function agentProfiles(home: string) {
  try {
    return loadProfiles(home, builtInProfiles({ home }));
  } catch (e) {
    throw new ConfigError((e as Error).message);
  }
}

/** ST-3: with PostgreSQL, events of every server process sharing the database reach every client. */
async function startEventRelay(config: Config, bus: EventBus, logger: pino.Logger): Promise<{ close(): Promise<void> } | undefined> {
  if (!config.databaseUrl) return undefined;
  const warn = (e: unknown) => logger.warn({ err: e }, "event relay");
  // Frames published before the LISTEN connection is up are not relayed (best effort).
  const wire: { transport?: EventRelay } = {};
  const relay = connectEventRelay(bus, config.runnerId, { publish: (p) => wire.transport?.publish(p) ?? Promise.resolve() }, warn);
  const transport = await openPgEventRelay({ databaseUrl: config.databaseUrl, onPayload: (p) => relay.receive(p), onError: warn });
  wire.transport = transport;
  return {
    async close() {
      relay.stop();
      await transport.close();
    },
  };
}

/** The `Host` other runners send to `GROVE_RUNNER_URL` (name and explicit port, or the bare name on the scheme's default port). */
function advertisedHost(url: string | undefined): string[] {
  if (!url) return [];
  const u = new URL(url);
  return [u.port ? u.host : u.hostname];
}

export interface RunningServer {
  url: string;
  config: Config;
  orchestrator: Orchestrator;
  /** The composed ports (tests and benchmarks observe the store, the bus and the agent runtime through them). */
  deps: Deps;
  /** Registered API routes (the OpenAPI document must list exactly these). */
  routes: RouteInfo[];
  /** Fastify's in-process request: a route called without a socket (route-level tests). */
  inject(opts: InjectOptions): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

/**
 * The composition root: configuration → store (migrations) → git, agents → orchestrator
 * (start-up recovery) → HTTP API. Prints `listening on http://HOST:PORT` when ready.
 */
export async function startServer(opts: { env?: NodeJS.ProcessEnv; quiet?: boolean } = {}): Promise<RunningServer> {
  // LIVE-1: the home is locked before anything of it is read or written (the runner id,
  // migrations, recovery); a second start refuses here, touching nothing.
  const lock = await lockHome(homeOf(opts.env ?? process.env));
  try {
    return await startLocked(opts, lock);
  } catch (e) {
    await lock.release();
    throw e;
  }
}

/** LIVE-1 on PostgreSQL: this process alone acts as its runner id (released when the returned claim is). */
async function claimRunnerId(config: Config): Promise<RunnerClaim | undefined> {
  if (!config.databaseUrl) return undefined;
  const r = await claimRunner(config.databaseUrl, config.runnerId, { pid: process.pid, host: hostname() });
  if ("claim" in r) return r.claim;
  const { pid, host, url } = r.heldBy;
  throw new AlreadyRunningError(
    `pid ${pid ?? "(unknown)"}${host ? ` on ${host}` : ""} serves runner ${config.runnerId} at ${url ?? "(an address it has not registered yet)"}`,
  );
}

async function startLocked(opts: { env?: NodeJS.ProcessEnv; quiet?: boolean }, lock: HomeLock): Promise<RunningServer> {
  const config = loadConfig(opts.env ?? process.env);
  armFaultPoints(config.fault);
  // A bad runner variable stops the start-up before anything opens.
  const runnerConfig = loadRunnerConfig(opts.env ?? process.env);
  // SBX-5: secrets read, they leave this process's start-time environment (/proc/<pid>/environ)
  // and every child's; the ADR on the person channel says why and what a parent still holds.
  for (const name of ["GROVE_AUTH_TOKEN", "GROVE_CLUSTER_SECRET"]) scrubStartEnvironment(name);
  const profiles = agentProfiles(config.home);
  // CFG-2: a GROVE_* name nobody reads (a typo) stops the start-up; names a profile passes to its agent are known.
  refuseUnknownVariables(
    opts.env ?? process.env,
    profiles.flatMap((p) => p.inheritEnv ?? []),
  );
  secureHome(config.home);
  // SBX-2: egress sockets a predecessor killed mid-session left behind (this process holds the lock).
  clearEgressRunDir(config.home);
  const logger = pino(
    // Headers are never logged by Grove; redacting them too keeps a future `log({ req })` safe (SEC-5).
    {
      level: config.logLevel,
      redact: [
        "req.headers.authorization",
        "req.headers.cookie",
        "headers.authorization",
        "headers.cookie",
        'req.headers["x-grove-cluster-secret"]',
        'headers["x-grove-cluster-secret"]',
      ],
    },
    pino.destination({ dest: join(config.home, "logs", "server.log"), mkdir: true, sync: false, mode: 0o600 }),
  );
  // RR-8: provider plugins load before anything opens, so a broken plugin fails the start-up loudly.
  const env = opts.env ?? process.env;
  const providers = await loadProviderRegistry(config.providerPlugins);
  const claim = await claimRunnerId(config);
  let store: Awaited<ReturnType<typeof openStore>>;
  try {
    store = await openStore({ home: config.home, ...(config.databaseUrl ? { databaseUrl: config.databaseUrl } : {}) });
  } catch (e) {
    await claim?.release();
    throw e;
  }
  // SBX-4: every git call inside a task worktree must come pinned to its recorded git dir.
  const git = new GitRunner({ pinnedRoots: [join(config.home, "tasks")], maxConcurrent: config.gitMaxConcurrency });
  const bus = new EventBus();
  const agents = new AgentRuntime();
  // SBX-2: the egress proxy refuses Grove's own port; it is known once the server listens.
  const listening: number[] = [];
  // MCP-1: Grove's MCP server for agents, behind a Unix socket (the sandbox's only door to Grove).
  const mcpTokens = new McpTokens();
  const mcpSocket = mcpSocketPath(config.home);
  const worktrees = new WorktreeManager(git);
  const pool = config.tuning.worktreePool?.size ? new WorktreePool({ git, worktrees, log: logger, home: config.home }, config.tuning.worktreePool) : undefined;
  // The one place that holds every port; each use case receives the subset it declares.
  const deps: Deps = {
    store,
    git,
    worktrees,
    ...(pool ? { pool } : {}),
    agents,
    profiles,
    bus,
    log: logger,
    home: config.home,
    runnerId: config.runnerId,
    launches: new LaunchRegistry(),
    now: () => new Date().toISOString(),
    gitIdentity: config.gitIdentity,
    trashRetentionMs: config.trashRetentionMs,
    usage: usageSettingsFrom(config.dailyBudget, config.home),
    tuning: config.tuning,
    sandbox: { bwrap: config.bwrap, env, ports: () => [...listening, ...(config.port > 0 ? [config.port] : [])] },
    mcp: { tokens: mcpTokens, socketPath: mcpSocket, shim: { command: process.execPath, args: [join(here, "..", "bin", "grove-mcp.mjs")] } },
    remote: {
      providers,
      refreshTimeoutMs: config.refreshTimeoutMs,
      cloneTimeoutMs: config.cloneTimeoutMs,
    },
    runner: {
      url: runnerConfig.url,
      labels: runnerConfig.labels,
      maxAgents: runnerConfig.maxAgents,
      heartbeatMs: runnerConfig.heartbeatMs,
      host: hostname(),
      version: VERSION,
    },
  };
  const orchestrator = new Orchestrator(deps);
  const mcpGateway = new McpGateway({
    tokens: mcpTokens,
    backend: orchestrator.mcpTools,
    log: logger,
    version: VERSION,
    callsPerMinute: config.mcpCallsPerMinute,
  });
  let relay: Awaited<ReturnType<typeof startEventRelay>>;
  try {
    // Before recovery: an agent it resumes may call a tool at once.
    await mcpGateway.listen(mcpSocket);
    relay = await startEventRelay(config, bus, logger);
    await orchestrator.start();
  } catch (e) {
    await mcpGateway.close();
    await store.close();
    await claim?.release();
    throw e;
  }
  const { app, routes } = await buildApi({
    orchestrator,
    bus,
    logger,
    version: VERSION,
    database: store.dialect,
    runnerId: config.runnerId,
    authToken: config.authToken,
    personToken: config.authToken ?? ensurePersonToken(config.home),
    editor: config.editor,
    env,
    bwrap: config.bwrap,
    webDist: join(here, "..", "..", "web", "dist"),
    // Other runners reach this one by its advertised URL: that Host is this server too.
    trust: {
      listenHost: config.host,
      allowedHosts: [...(config.allowedHosts ?? []), ...advertisedHost(runnerConfig.url)],
      allowedOrigins: config.allowedOrigins,
    },
    cluster: { secret: runnerConfig.clusterSecret, timeoutMs: runnerConfig.forwardTimeoutMs },
    wsLimits: config.wsLimits,
  });
  await app.listen({ host: config.host, port: config.port });
  const addr = app.server.address();
  const port = typeof addr === "object" && addr ? addr.port : config.port;
  listening.push(port);
  const host = config.host.includes(":") ? `[${config.host}]` : config.host;
  const url = `http://${host}:${port}`;
  try {
    await orchestrator.runners.start(url);
  } catch (e) {
    await app.close();
    await orchestrator.shutdown();
    await mcpGateway.close();
    await relay?.close();
    await store.close();
    await claim?.release();
    throw e;
  }
  lock.setUrl(url);
  if (!opts.quiet) {
    // One write, so whoever reads the pipe (a supervisor, a test) gets both lines together: the
    // address, then a first step for someone who just ran `npm start` (the page, the CLI's first command).
    process.stdout.write(
      `grove ${VERSION} listening on ${url} (data in ${config.home}, ${store.dialect})\n` +
        `next: open ${url} in your browser, or add a repository from a terminal: grove repo add <path>\n`,
    );
  }
  logger.info({ url, runnerId: config.runnerId, database: store.dialect }, "listening");
  // Recovery that no request needs before this point (start-up that does not grow).
  orchestrator.afterListening().catch((e: unknown) => logger.error({ err: e }, "start-up recovery after listening"));
  let closed = false;
  return {
    url,
    config,
    orchestrator,
    deps,
    routes,
    inject: (opts) => app.inject(opts),
    async close() {
      if (closed) return;
      closed = true;
      logger.info("stopping");
      // A browser opens sockets ahead of need (preconnect) that never carry a request; Node's
      // close waits for those until its headersTimeout (60 s). Requests in flight get a short
      // grace, then every socket left is closed, so a stop with the page open stays prompt.
      const force = setTimeout(() => app.server.closeAllConnections(), 2_000);
      force.unref();
      try {
        await app.close();
      } finally {
        clearTimeout(force);
      }
      await orchestrator.shutdown();
      await mcpGateway.close();
      await relay?.close();
      await store.close();
      await claim?.release();
      await lock.release();
      logger.info("stopped");
      logger.flush();
    },
  };
}
