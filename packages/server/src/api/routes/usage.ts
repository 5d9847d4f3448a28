import type { USAGE_OPERATIONS } from "@grove/protocol/operations";
import { taskView } from "../../domain/views.js";
import type { Orchestrator } from "../../orchestrator/orchestrator.js";
import type { HandlersOf } from "../operation-routes.js";

/** USE-1 roll-ups and USE-2 budgets (setting a budget or the daily cap is person-only, person-auth.ts). */
export function usageHandlers(orch: Orchestrator): HandlersOf<typeof USAGE_OPERATIONS> {
  return {
    getUsage: async ({ query }) => orch.usageReport(query),
    getDailyBudget: async () => orch.dailyBudget(),
    putDailyBudget: async ({ body }) => orch.putDailyBudget(body),
    resetDailyBudget: async () => orch.putDailyBudget("reset"),
    putTaskBudget: async ({ params, body }) => taskView(await orch.putBudget(params.id, body)),
  };
}
