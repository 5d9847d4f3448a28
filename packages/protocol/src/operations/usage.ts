import { DailyBudget, PutBudgetBody, PutDailyBudgetBody, Task, UsageQuery, UsageReport } from "../index.js";
import { operation } from "./operation.js";

/** USE-1 roll-ups and USE-2 budgets (setting a budget or the daily cap is the person's alone). */
export const USAGE_OPERATIONS = {
  getUsage: operation({
    method: "get",
    path: "/usage",
    summary: "Usage summed per task (subtasks included), repository, agent profile, runner or UTC day over every runner (USE-1); paged by key",
    query: UsageQuery,
    queryDocs: {
      groupBy: "task (default), repository, agent, runner or day",
      from: "first UTC day included (YYYY-MM-DD)",
      to: "last UTC day included (YYYY-MM-DD)",
      taskId: "only this task and its subtasks",
      limit: "rows per page (1–500, default 100)",
      cursor: "nextCursor of the previous page",
    },
    response: UsageReport,
    errors: ["invalid_request", "not_found"],
  }),
  getDailyBudget: operation({
    method: "get",
    path: "/usage/daily-budget",
    summary: "The global daily cap in force (the person's, else GROVE_DAILY_BUDGET) and today's spend over every runner (USE-2)",
    response: DailyBudget,
  }),
  putDailyBudget: operation({
    method: "put",
    path: "/usage/daily-budget",
    summary: "Set the global daily cap in cost and/or tokens, in force at once on every runner, no restart ({} turns it off; USE-2; the person only)",
    body: PutDailyBudgetBody,
    bodyOptional: true,
    response: DailyBudget,
    errors: ["invalid_request", "person_required"],
    personOnly: true,
  }),
  resetDailyBudget: operation({
    method: "delete",
    path: "/usage/daily-budget",
    summary: "Drop the person's daily cap: GROVE_DAILY_BUDGET applies again (USE-2; the person only)",
    response: DailyBudget,
    errors: ["person_required"],
    personOnly: true,
  }),
  putTaskBudget: operation({
    method: "put",
    path: "/tasks/{id}/budget",
    summary:
      "Set a task's budget in cost and/or tokens (subtasks inherit it; {} removes it), or {continueOnce: true} to let exactly one more turn run past it (USE-2; the person only)",
    body: PutBudgetBody,
    bodyOptional: true,
    response: Task,
    errors: ["invalid_request", "not_found", "person_required"],
    personOnly: true,
  }),
};
