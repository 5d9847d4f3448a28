import type { FastifyInstance } from "fastify";
import { PutBudgetBody, UsageQuery } from "@grove/protocol";
import { taskView } from "../../domain/views.js";
import type { Orchestrator } from "../../orchestrator/orchestrator.js";
import { parse } from "../validate.js";

type Id = { Params: { id: string } };

/** USE-1 roll-ups and USE-2 budgets (`PUT /tasks/:id/budget` is person-only, person-auth.ts). */
export function usageRoutes(app: FastifyInstance, orch: Orchestrator): void {
  app.get("/usage", async (req) => orch.usageReport(parse(UsageQuery, req.query, "query")));
  app.put<Id>("/tasks/:id/budget", async (req) => taskView(await orch.putBudget(req.params.id, parse(PutBudgetBody, req.body ?? {}))));
}
