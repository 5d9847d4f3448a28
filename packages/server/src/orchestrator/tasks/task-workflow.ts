import { type WorkflowRecord, defaultWorkflow, isPlainBoard } from "../../domain/workflow.js";
import type { TaskRecord } from "../../domain/records.js";
import type { Deps } from "../context.js";

/**
 * WF-1: the workflow a task runs under: the first (by name) stored for its first repository,
 * else the first global one, else the built-in plain board.
 */
export async function workflowOf(deps: Pick<Deps, "store">, task: Pick<TaskRecord, "repositories">): Promise<WorkflowRecord> {
  const repositoryId = task.repositories[0]?.repositoryId;
  const all = await deps.store.workflows.list();
  return all.find((w) => repositoryId !== undefined && w.repositoryId === repositoryId) ?? all.find((w) => w.repositoryId === null) ?? defaultWorkflow();
}

/** WF-1: only the plain board derives a task's column from its sessions (in_progress while one works, review when all wait). */
export async function boardDerivesState(deps: Pick<Deps, "store">, task: Pick<TaskRecord, "repositories">): Promise<boolean> {
  return isPlainBoard((await workflowOf(deps, task)).definition);
}
