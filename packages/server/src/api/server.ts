import { existsSync } from "node:fs";
import { timingSafeEqual } from "node:crypto";
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from "fastify";
import fastifyStatic from "@fastify/static";
import fastifyWebsocket from "@fastify/websocket";
import type { Logger } from "pino";
import type { EventBus } from "../domain/event-bus.js";
import { AppError } from "../domain/errors.js";
import type { Orchestrator } from "../orchestrator/orchestrator.js";
import { installErrorHandler } from "./error-handler.js";
import { eventRoutes } from "./routes/events.js";
import { lifecycleRoutes } from "./routes/lifecycle.js";
import { metaRoutes } from "./routes/meta.js";
import { repositoryRoutes } from "./routes/repositories.js";
import { reviewRoutes } from "./routes/review.js";
import { sessionRoutes } from "./routes/sessions.js";
import { taskRoutes } from "./routes/tasks.js";
import { terminalRoutes } from "./routes/terminal.js";

export interface ApiOptions {
  orchestrator: Orchestrator;
  bus: EventBus;
  logger: Logger;
  version: string;
  database: "sqlite" | "postgres";
  runnerId: string;
  authToken?: string | undefined;
  /** `GROVE_EDITOR`: the command "open in editor" runs with a worktree path. */
  editor?: string | undefined;
  /** The server's environment, for the terminal's shell (minus secrets). */
  env?: NodeJS.ProcessEnv;
  /** Built web UI (packages/web/dist), served at `/` when present. */
  webDist?: string | undefined;
}

function tokenMatches(expected: string, given: string | undefined): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Method and OpenAPI-style path of every API route (`/tasks/{id}`), for the OpenAPI check. */
export interface RouteInfo {
  method: string;
  path: string;
}

/** The HTTP API under `/api/v1`, the event WebSocket and the web UI (UX-1, UX-2, SEC-1). */
export async function buildApi(opts: ApiOptions): Promise<{ app: FastifyInstance; routes: RouteInfo[] }> {
  const app = Fastify({ loggerInstance: opts.logger as FastifyBaseLogger, bodyLimit: 2 * 1024 * 1024 });
  const routes: RouteInfo[] = [];
  app.addHook("onRoute", (r) => {
    if (!r.url.startsWith("/api/v1/")) return;
    for (const m of [r.method].flat()) {
      if (m === "HEAD") continue;
      routes.push({ method: m.toLowerCase(), path: r.url.slice("/api/v1".length).replace(/:([A-Za-z]+)/g, "{$1}") });
    }
  });
  installErrorHandler(app);
  await app.register(fastifyWebsocket);
  await app.register(
    async (api) => {
      if (opts.authToken) {
        const token = opts.authToken;
        api.addHook("onRequest", async (req) => {
          const header = req.headers.authorization;
          const bearer = header?.startsWith("Bearer ") ? header.slice(7) : undefined;
          const query = (req.query as Record<string, string | undefined>).token;
          if (!tokenMatches(token, bearer) && !tokenMatches(token, query)) throw new AppError("unauthorized", "a valid bearer token is required");
        });
      }
      metaRoutes(api, opts.orchestrator, { version: opts.version, database: opts.database, runnerId: opts.runnerId });
      repositoryRoutes(api, opts.orchestrator);
      taskRoutes(api, opts.orchestrator);
      sessionRoutes(api, opts.orchestrator);
      lifecycleRoutes(api, opts.orchestrator);
      reviewRoutes(api, opts.orchestrator);
      eventRoutes(api, opts.bus);
      terminalRoutes(api, opts.orchestrator, { editor: opts.editor, env: opts.env ?? process.env });
    },
    { prefix: "/api/v1" },
  );
  const web = opts.webDist && existsSync(opts.webDist) ? opts.webDist : undefined;
  if (web) await app.register(fastifyStatic, { root: web, wildcard: false });
  // One not-found handler: JSON 404 for the API, the single-page app for everything else.
  app.setNotFoundHandler((req, reply) => {
    if (web && req.method === "GET" && !req.url.startsWith("/api/")) return reply.sendFile("index.html");
    return reply.status(404).send({ error: { code: "not_found", message: `no route ${req.method} ${req.url.split("?")[0]}` } });
  });
  return { app, routes };
}
