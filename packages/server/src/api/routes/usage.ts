import type { FastifyInstance } from "fastify";
import { PutBudgetBody, PutDailyBudgetBody, UsageQuery } from "@grove/protocol";
import { taskView } from "../../domain/views.js";
import type { Orchestrator } from "../../orchestrator/orchestrator.js";
import { parse } from "../validate.js";

type Id = { Params: { id: string } };

/** USE-1 roll-ups and USE-2 budgets (setting a budget or the daily cap is person-only, person-auth.ts). */
export function usageRoutes(app: FastifyInstance, orch: Orchestrator): void {
  app.get("/usage", async (req) => orch.usageReport(parse(UsageQuery, req.query, "query")));
  app.get("/usage/daily-budget", async () => orch.dailyBudget());
  app.put("/usage/daily-budget", async (req) => orch.putDailyBudget(parse(PutDailyBudgetBody, req.body ?? {})));
  app.delete("/usage/daily-budget", async () => orch.putDailyBudget("reset"));
  app.put<Id>("/tasks/:id/budget", async (req) => taskView(await orch.putBudget(req.params.id, parse(PutBudgetBody, req.body ?? {}))));
}
