import { z } from "zod";

/**
 * USE-1: what a session's agent used so far. Tokens are summed over its turns' reported usage;
 * `contextUsed`/`contextWindow` are the latest ACP `usage_update`; `cost` is the agent's own
 * cumulative cost when it reports one, else computed from the price table (`estimated: true`).
 */
export const SessionUsage = z.object({
  tokensIn: z.number().nonnegative(),
  tokensOut: z.number().nonnegative(),
  cacheRead: z.number().nonnegative().optional(),
  cacheWrite: z.number().nonnegative().optional(),
  contextUsed: z.number().nonnegative().optional(),
  contextWindow: z.number().nonnegative().optional(),
  cost: z.number().nonnegative().optional(),
  currency: z.string().optional(),
  estimated: z.boolean().optional(),
});
export type SessionUsage = z.infer<typeof SessionUsage>;

/** USE-2: a task's budget (inherited by its subtasks); either limit or both. Tokens = in + out. */
export const TaskBudget = z.object({
  cost: z.number().positive().optional(),
  tokens: z.number().int().positive().optional(),
});
export type TaskBudget = z.infer<typeof TaskBudget>;

/**
 * `PUT /tasks/:id/budget`: the new limits (an absent limit is removed; `{}` removes the budget),
 * or `continueOnce: true` to let exactly one more turn run past the budget, limits unchanged.
 */
export const PutBudgetBody = z
  .object({
    cost: z.number().positive().optional(),
    tokens: z.number().int().positive().optional(),
    continueOnce: z.literal(true).optional(),
  })
  .strict();
export type PutBudgetBody = z.infer<typeof PutBudgetBody>;

/**
 * USE-2 `PUT /usage/daily-budget`: the global daily cap over every runner, set by the person
 * without a restart; it wins over GROVE_DAILY_BUDGET until `DELETE /usage/daily-budget`.
 * `{}` turns the cap off.
 */
export const PutDailyBudgetBody = z
  .object({
    cost: z.number().positive().optional(),
    tokens: z.number().int().positive().optional(),
  })
  .strict();
export type PutDailyBudgetBody = z.infer<typeof PutDailyBudgetBody>;

/** `GET /usage/daily-budget`: the cap in force, where it comes from, and today's spend against it. */
export const DailyBudget = z.object({
  /** The limits in force (`{}`: no daily cap). */
  budget: TaskBudget,
  /** `person`: set through the API; `config`: GROVE_DAILY_BUDGET; `none`: neither. */
  source: z.enum(["person", "config", "none"]),
  /** When the person set it (the cap's version). */
  setAt: z.string().nullable(),
  /** The UTC day and what every runner spent on it so far (tokens = in + out). */
  day: z.string(),
  used: z.object({ tokens: z.number().int().nonnegative(), cost: z.number().nonnegative() }),
});
export type DailyBudget = z.infer<typeof DailyBudget>;

/**
 * USE-2: an agent profile's daily cap (`PUT /agents/:name/budget`, the body of the daily cap) and
 * what the sessions of that profile spent on the UTC day over every runner.
 */
export const AgentBudget = z.object({
  /** The limits in force (`{}`: no cap). */
  budget: TaskBudget,
  /** When the person set it (the cap's version); null without a cap. */
  setAt: z.string().nullable(),
  day: z.string(),
  used: z.object({ tokens: z.number().int().nonnegative(), cost: z.number().nonnegative() }),
});
export type AgentBudget = z.infer<typeof AgentBudget>;

/** `GET /usage` grouping keys. */
export const UsageGroupBy = z.enum(["task", "repository", "agent", "runner", "day"]);
export type UsageGroupBy = z.infer<typeof UsageGroupBy>;

const DAY = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "a day as YYYY-MM-DD");

export const UsageQuery = z
  .object({
    groupBy: UsageGroupBy.default("task"),
    /** First and last UTC day included (YYYY-MM-DD). */
    from: DAY.optional(),
    to: DAY.optional(),
    /** Only this task and its subtasks. */
    taskId: z.string().min(1).optional(),
    limit: z.coerce.number().int().min(1).max(500).default(100),
    cursor: z.string().min(1).optional(),
  })
  .strict();
export type UsageQuery = z.infer<typeof UsageQuery>;

/** One row of `GET /usage`: the sums of one key (a task id, repository id, agent profile, runner id or UTC day). */
export const UsageRow = z.object({
  key: z.string(),
  /** A readable name of the key where there is one (the task's title, the repository's name). */
  label: z.string().optional(),
  tokensIn: z.number(),
  tokensOut: z.number(),
  cacheRead: z.number().optional(),
  cacheWrite: z.number().optional(),
  cost: z.number(),
  currency: z.string(),
  /** Part of the cost was computed from the price table (the agent reported tokens only). */
  estimated: z.boolean(),
});
export type UsageRow = z.infer<typeof UsageRow>;

export const UsageReport = z.object({ rows: z.array(UsageRow), nextCursor: z.string().nullable() });
export type UsageReport = z.infer<typeof UsageReport>;
