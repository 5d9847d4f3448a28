import type { FastifyInstance } from "fastify";
import type { Orchestrator } from "../../orchestrator/orchestrator.js";

/** `GET /runners`, the runners registry with live load and online/offline state. */
export function runnerRoutes(app: FastifyInstance, orch: Orchestrator): void {
  app.get("/runners", async () => orch.runners.list());
}
