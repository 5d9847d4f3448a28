import type { FastifyInstance } from "fastify";
import type { Orchestrator } from "../../orchestrator/orchestrator.js";
import { openApiDocument } from "../openapi-document.js";

export function metaRoutes(app: FastifyInstance, orch: Orchestrator, info: { version: string; database: "sqlite" | "postgres"; runnerId: string }): void {
  app.get("/health", async () => ({ status: "ok", ...info }));
  app.get("/agents", async () => orch.agentProfiles());
  const doc = openApiDocument(info.version);
  app.get("/openapi.json", async () => doc);
}
