import { z } from "zod";

/**
 * MCP-1/MCP-2: the tools Grove's MCP server serves to every session, with their input schemas.
 * docs/specs/mcp.md lists exactly these (a test compares the served list with it). Every tool
 * acts on the calling session's own task or one of its subtasks; none can answer a permission,
 * change a mode, merge, push, delete, or reach a worktree.
 */
const taskId = z.string().min(1).max(100).optional().describe("A task of your own subtree; default: your own task");

export const TOOL_CATALOG = {
  task_get: {
    description: "Your task: title, brief, repositories and branches, open review comments, Changes summary, progress, parent and subtasks.",
    input: { taskId },
  },
  task_update: {
    description: "Change your own task's title, or move it to Review when your work is ready (never to Done).",
    input: {
      taskId,
      title: z.string().trim().min(1).max(500).optional(),
      state: z.enum(["review"]).optional().describe('Only "review"'),
    },
  },
  report_progress: {
    description: "A short status line (and optionally your plan) shown on the task's card and page.",
    input: {
      status: z.string().trim().min(1).max(200),
      plan: z
        .array(z.object({ content: z.string().trim().min(1).max(500), status: z.enum(["pending", "in_progress", "completed"]) }))
        .max(50)
        .optional(),
    },
  },
  ask_user: {
    description:
      "Ask the person a question (optionally with choices) and wait for the answer. It shows in Grove's inbox; after timeoutSeconds (default and at most 1800) the call fails with question_timeout.",
    input: {
      question: z.string().trim().min(1).max(2000),
      choices: z.array(z.string().trim().min(1).max(200)).max(20).optional(),
      timeoutSeconds: z.number().int().min(1).max(1800).optional(),
    },
  },
  subtask_create: {
    description:
      "Create a subtask of your task (on its repositories, or the named ones), optionally started at once with an agent profile and a prompt. Limited in depth, count and running agents (subtask_limit).",
    input: {
      taskId,
      title: z.string().trim().min(1).max(500),
      description: z.string().max(100_000).optional(),
      repositoryIds: z.array(z.string().min(1).max(100)).min(1).max(20).optional(),
      agent: z.string().min(1).max(100).optional().describe("An agent profile; default: the one you run as"),
      prompt: z.string().max(1_000_000).optional(),
    },
  },
  subtask_list: {
    description: "Your task's subtasks: state and the outcome of each one's latest session.",
    input: { taskId },
  },
  subtask_get: {
    description: "One subtask of yours: state, outcome, brief and its Changes summary.",
    input: { taskId: z.string().min(1).max(100) },
  },
  board_list: {
    description: 'Every task on the board (id, title, state, parent), read-only. Only for agent profiles with mcp: "board".',
    input: {},
  },
  comments_list: {
    description: "The review comments on your task (open and resolved).",
    input: { taskId },
  },
  comment_create: {
    description: "A line comment on your task's Changes (as a reviewer would leave one).",
    input: {
      taskId,
      repositoryId: z.string().min(1).max(100).optional().describe("Default: the task's only repository"),
      path: z.string().min(1).max(4096),
      line: z.number().int().min(1),
      side: z.enum(["new", "old"]).optional(),
      body: z.string().trim().min(1).max(100_000),
    },
  },
  comment_resolve: {
    description: "Mark a review comment of your task resolved (or open again with resolved: false).",
    input: { commentId: z.string().min(1).max(100), resolved: z.boolean().optional() },
  },
} as const;

export type ToolName = keyof typeof TOOL_CATALOG;
export const TOOL_NAMES = Object.keys(TOOL_CATALOG) as ToolName[];

/** MCP-1: a profile's renames: the name a tool is served under instead of its own. */
export type McpToolNames = Partial<Record<ToolName, string>>;

/** What a served name (a tool model-facing name) must look like: MCP clients prefix it, models cap names at 64. */
export const SERVED_TOOL_NAME = /^[a-z][a-z0-9_]{0,47}$/;

/**
 * The served name → tool map of one session: every tool under its own name, except the renamed
 * ones, which are served only under their new name.
 */
export function servedToolNames(renames: McpToolNames = {}): Map<string, ToolName> {
  return new Map(TOOL_NAMES.map((t) => [renames[t] ?? t, t]));
}

/** Why a set of renames cannot be served (a name taken twice or not a valid name); undefined when it can. */
export function renameProblem(renames: Record<string, string>): string | undefined {
  for (const [tool, name] of Object.entries(renames)) {
    if (!(TOOL_NAMES as string[]).includes(tool)) return `${tool} is not a grove tool`;
    if (!SERVED_TOOL_NAME.test(name)) return `${tool}: ${name} is not a tool name (lower-case letters, digits and '_', at most 48)`;
  }
  const served = TOOL_NAMES.map((t) => renames[t] ?? t);
  const twice = served.find((n, i) => served.indexOf(n) !== i);
  return twice ? `the tool name ${twice} would be served twice` : undefined;
}
