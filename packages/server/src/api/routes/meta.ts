import type { FastifyInstance } from "fastify";
import type { Orchestrator } from "../../orchestrator/orchestrator.js";
import { openApiDocument } from "../openapi-document.js";

export function metaRoutes(app: FastifyInstance, orch: Orchestrator, info: { version: string; database: "sqlite" | "postgres"; runnerId: string }): void {
  app.get("/health", async () => ({ status: "ok", ...info }));
  app.get("/agents", async () => orch.agentProfiles());
  // Built on first request, not at start-up: converting every schema takes a tenth of the time
  // to `listening`, and most servers never serve it.
  let doc: unknown;
  app.get("/openapi.json", async () => (doc ??= openApiDocument(info.version)));
}
