import { z } from "zod";
import { TaskBudget } from "./usage.js";

/** Tasks and repositories of the HTTP API. Fields may be added; none may be renamed. */

export const TaskState = z.enum(["todo", "in_progress", "review", "done", "failed"]);
export type TaskState = z.infer<typeof TaskState>;
export const CredentialPolicy = z.enum(["managed", "executor"]);

export const Repository = z.object({
  id: z.string(),
  name: z.string(),
  path: z.string(),
  url: z.string().optional(),
  /** The provider's REST API base for pull requests; absent = the provider's public API. */
  apiUrl: z.string().optional(),
  provider: z.string(),
  defaultBranch: z.string(),
  pullBeforeWorktree: z.boolean(),
  credentialPolicy: CredentialPolicy,
  hasCredential: z.boolean(),
  branchTemplate: z.string(),
  copyFiles: z.array(z.string()).optional(),
  /** WT-11: directories checked out in new worktrees (git's cone mode); empty = the whole tree. */
  sparseCheckout: z.array(z.string()).optional(),
  setupScript: z.string().nullable().optional(),
  createdAt: z.string(),
});
export type Repository = z.infer<typeof Repository>;

export const TaskRepository = z.object({
  repositoryId: z.string(),
  baseBranch: z.string(),
  checkoutBranch: z.string().optional(),
  prNumber: z.number().int().optional(),
  position: z.number().int(),
});
export type TaskRepository = z.infer<typeof TaskRepository>;

/** MCP-2: an agent's latest `report_progress` of a task: its status line and plan items. */
export const TaskProgress = z.object({
  status: z.string(),
  plan: z.array(z.object({ content: z.string(), status: z.enum(["pending", "in_progress", "completed"]) })).nullable(),
  updatedAt: z.string(),
});
export type TaskProgress = z.infer<typeof TaskProgress>;

export const Task = z.object({
  id: z.string(),
  title: z.string(),
  description: z.string(),
  state: TaskState,
  archivedAt: z.string().nullable(),
  /** LIVE-5: when the task went to the trash; null (or absent) for a task that is not deleted. */
  deletedAt: z.string().nullable().optional(),
  /** MCP-3: the parent task of a subtask (created by an agent's `subtask_create`); absent otherwise. */
  parentId: z.string().nullable().optional(),
  createdAt: z.string(),
  updatedAt: z.string(),
  repositories: z.array(TaskRepository),
  /**
   * (GET /tasks, GET /tasks/:id; absent from task.* event frames): the runner holding
   * the task's environment; null before one exists.
   */
  runnerId: z.string().nullable().optional(),
  /** (GET /tasks, GET /tasks/:id): that runner's state, computed at read time from its heartbeat; null before an environment exists. */
  runnerState: z.enum(["online", "offline"]).nullable().optional(),
  /** (GET /tasks/:id): labels the task's runner must advertise (`runnerLabels` of POST /tasks). */
  runnerLabels: z.array(z.string()).optional(),
  /** MCP-2 (GET /tasks/:id, task.updated): the latest `report_progress` of an agent of the task; null before one. */
  progress: TaskProgress.nullable().optional(),
  /** USE-2: the task's budget, when a person set one (subtasks inherit it). */
  budget: TaskBudget.optional(),
});
export type Task = z.infer<typeof Task>;

/** LIVE-5: a task in the trash (`GET /trash`), with when the purge job will remove it for good. */
export const TrashedTask = Task.extend({ deletedAt: z.string(), purgeAt: z.string() });
export type TrashedTask = z.infer<typeof TrashedTask>;
