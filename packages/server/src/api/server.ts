import { existsSync } from "node:fs";
import { resolve, sep } from "node:path";
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply } from "fastify";
import type { ErrorBody } from "@grove/protocol";
import fastifyStatic from "@fastify/static";
import fastifyWebsocket from "@fastify/websocket";
import type { Logger } from "pino";
import type { EventBus } from "../domain/event-bus.js";
import type { Orchestrator } from "../orchestrator/orchestrator.js";
import { installErrorHandler } from "./error-handler.js";
import { installClusterAuth } from "./cluster-auth.js";
import { installForwarding, type ClusterOptions } from "./forward.js";
import { installTokenCookie, requireToken } from "./auth.js";
import { installPersonCookie, installPersonGuard } from "./person-auth.js";
import { installInputGuard } from "./input-guard.js";
import { installRequestLog } from "./request-log.js";
import { installJsonParser, installTrustGuard, type TrustOptions } from "./trust-guard.js";
import { DEFAULT_WS_LIMITS, installWsLimit, type WsLimits } from "./ws-limits.js";
import { docsRoutes } from "./routes/docs.js";
import { eventHandlers } from "./routes/events.js";
import { lifecycleHandlers } from "./routes/lifecycle.js";
import { metaHandlers } from "./routes/meta.js";
import { repositoryHandlers } from "./routes/repositories.js";
import { agentHandlers } from "./routes/agents.js";
import { reviewHandlers } from "./routes/review.js";
import { inboxHandlers } from "./routes/inbox.js";
import { usageHandlers } from "./routes/usage.js";
import { settingsHandlers } from "./routes/settings.js";
import { workflowHandlers } from "./routes/workflows.js";
import { sessionHandlers } from "./routes/sessions.js";
import { taskHandlers } from "./routes/tasks.js";
import { terminalHandlers } from "./routes/terminal.js";
import { registerOperations } from "./operation-routes.js";

export interface ApiOptions {
  orchestrator: Orchestrator;
  bus: EventBus;
  logger: Logger;
  version: string;
  database: "sqlite" | "postgres";
  runnerId: string;
  authToken?: string | undefined;
  /**
   * SBX-5: the credential of the person's channels for person-only routes (answers, mode,
   * model): `GROVE_AUTH_TOKEN` when set, else the home's minted person token.
   */
  personToken: string;
  /** `GROVE_EDITOR`: the command "open in editor" runs with a worktree path. */
  editor?: string | undefined;
  /** The server's environment, for the terminal's shell (minus secrets). */
  env?: NodeJS.ProcessEnv;
  /** TERM-6: the terminal's bubblewrap (`Config.bwrap`). */
  bwrap: string;
  /** Built web UI (packages/web/dist), served at `/` when present. */
  webDist?: string | undefined;
  /** SEC-5 Host/Origin allow-list; the listen address and loopback names are always allowed. */
  trust: TrustOptions;
  /** SEC-8 WebSocket bounds (defaults: 64 clients, 1 MiB unread per client). */
  wsLimits?: WsLimits | undefined;
  /** Forwarding to other runners (secret, timeout); absent = forward nothing without a secret. */
  cluster?: Omit<ClusterOptions, "runnerId"> | undefined;
}

/** Method and OpenAPI-style path of every API route (`/tasks/{id}`), for the OpenAPI check. */
export interface RouteInfo {
  method: string;
  path: string;
  /** The operation of the table the route serves (absent: a route registered past the table). */
  operationId: string | undefined;
}

/** The schema-compiler factory Fastify gets instead of Ajv / fast-json-stringify (see `buildApi`). */
function noJsonSchemas(): () => never {
  return () => {
    throw new Error("routes take no Fastify JSON schema: parse requests with the protocol's zod schemas (api/validate.ts)");
  };
}

/** The HTTP API under `/api/v1`, the event WebSocket and the web UI (UX-1, UX-2, SEC-1). */
export async function buildApi(opts: ApiOptions): Promise<{ app: FastifyInstance; routes: RouteInfo[] }> {
  // SEC-8: 2 MiB is the largest body any route accepts (a 1 MB prompt, JSON-escaped); see docs/specs/security.md.
  const app = Fastify({
    loggerInstance: opts.logger as FastifyBaseLogger,
    bodyLimit: 2 * 1024 * 1024,
    // Requests are parsed with the protocol's zod schemas (validate.ts) and no route declares a
    // Fastify JSON schema, so Ajv and fast-json-stringify need never load (a third of the time to
    // `listening`). A route that declared one would fail loudly at registration.
    schemaController: { compilersFactory: { buildValidator: noJsonSchemas, buildSerializer: noJsonSchemas } },
    // SEC-6: Fastify's own request lines carry the raw URL (`?token=`); request-log.ts writes redacted ones.
    logController: new LogController({ disableRequestLogging: true }),
    // SEC-8: a path that is not valid percent-encoded UTF-8 gets the API's error shape too.
    frameworkErrors: (err, _req, reply) => {
      const body: ErrorBody = { error: { code: "invalid_request", message: err.message, details: { field: "url" } } };
      void (reply as FastifyReply).status(400).send(body);
    },
  });
  const routes: RouteInfo[] = [];
  app.addHook("onRoute", (r) => {
    if (!r.url.startsWith("/api/v1/")) return;
    for (const m of [r.method].flat()) {
      if (m === "HEAD") continue;
      routes.push({
        method: m.toLowerCase(),
        path: r.url.slice("/api/v1".length).replace(/:([A-Za-z]+)/g, "{$1}"),
        operationId: r.config?.operationId,
      });
    }
  });
  installErrorHandler(app);
  // First: its own onRequest hook marks upgrade requests, so a refused upgrade's socket is closed.
  await app.register(fastifyWebsocket);
  // SEC-5/6/8: root-level hooks run before every route, WebSocket upgrade and the page.
  installTrustGuard(app, opts.trust);
  installWsLimit(app, opts.wsLimits ?? DEFAULT_WS_LIMITS);
  installJsonParser(app);
  installInputGuard(app);
  installRequestLog(app);
  // SBX-5: a forwarded request proves its signature (the bearer-token check does not apply to it).
  installClusterAuth(app, {
    secret: opts.cluster?.secret,
    runnerId: opts.runnerId,
    senderOnline: async (id) => id !== opts.runnerId && (await opts.orchestrator.runners.stateOf(id)) === "online",
  });
  if (opts.authToken) installTokenCookie(app, opts.authToken);
  else installPersonCookie(app, opts.personToken);
  await app.register(
    async (api) => {
      if (opts.authToken) requireToken(api, opts.authToken);
      installPersonGuard(api, opts.personToken);
      installForwarding(api, opts.orchestrator, { runnerId: opts.runnerId, secret: opts.cluster?.secret, timeoutMs: opts.cluster?.timeoutMs ?? 120_000 });
      const terminal = terminalHandlers(opts.orchestrator, {
        editor: opts.editor,
        env: opts.env ?? process.env,
        bwrap: opts.bwrap,
        cluster: { runnerId: opts.runnerId, secret: opts.cluster?.secret },
      });
      api.addHook("onClose", terminal.close);
      // Every operation of the table, each with its handler (a missing one is a type error).
      registerOperations(api, {
        ...metaHandlers(opts.orchestrator, { version: opts.version, database: opts.database, runnerId: opts.runnerId }),
        ...eventHandlers(opts.bus, opts.wsLimits),
        ...repositoryHandlers(opts.orchestrator),
        ...taskHandlers(opts.orchestrator),
        ...sessionHandlers(opts.orchestrator),
        ...agentHandlers(opts.orchestrator),
        ...lifecycleHandlers(opts.orchestrator),
        ...reviewHandlers(opts.orchestrator),
        ...inboxHandlers(opts.orchestrator),
        ...usageHandlers(opts.orchestrator),
        ...workflowHandlers(opts.orchestrator),
        ...terminal.handlers,
        ...settingsHandlers(opts.orchestrator, { editor: opts.editor }),
      });
    },
    { prefix: "/api/v1" },
  );
  docsRoutes(app);
  const web = opts.webDist && existsSync(opts.webDist) ? opts.webDist : undefined;
  // WEB-18: a built asset's name carries its content hash, so its content never changes: the
  // browser keeps it without asking again, and a view opened while the server is down loads from
  // the cache its prefetch filled (packages/web/prefetch-views.ts). The page itself is revalidated.
  if (web) {
    const assets = resolve(web, "assets") + sep;
    const setHeaders = (reply: FastifyReply, path: string) => {
      if (path.startsWith(assets)) reply.header("cache-control", "public, max-age=31536000, immutable");
    };
    await app.register(fastifyStatic, { root: web, wildcard: false, setHeaders });
  }
  // One not-found handler: JSON 404 for the API, the single-page app for everything else.
  app.setNotFoundHandler((req, reply) => {
    // A missing built asset is a 404, not the page: a script that gets HTML back fails without saying why.
    if (web && req.method === "GET" && !req.url.startsWith("/api/") && !req.url.startsWith("/assets/")) return reply.sendFile("index.html");
    return reply.status(404).send({ error: { code: "not_found", message: `no route ${req.method} ${req.url.split("?")[0]}` } });
  });
  return { app, routes };
}
