/** Kysely table types (schema.ts): Workflows and their runs (WF-1, WF-2). */

/** WF-1 (migration 026): the current version of each workflow; `definition` is JSON. */
export interface WorkflowsTable {
  name: string;
  repository_id: string | null;
  version: number;
  source: string;
  definition: string;
  stopped: number;
  created_at: string;
  updated_at: string;
}

/** WF-2 (migration 026): a task entering a step. */
export interface WorkflowEntriesTable {
  id: string;
  task_id: string;
  seq: number;
  step: string;
  workflow: string;
  version: number;
  created_at: string;
}

/** WF-2 (migration 026): one automated action, a durable job keyed by `idem_key`; `action` is JSON. */
export interface WorkflowRunsTable {
  id: string;
  idem_key: string;
  task_id: string;
  entry_id: string | null;
  workflow: string;
  version: number;
  step: string;
  action_index: number;
  action: string;
  cause: string;
  state: string;
  runner_id: string | null;
  attempts: number;
  outcome: string | null;
  session_id: string | null;
  /** WF-2.13 (migration 030): a `run` command's result, JSON. */
  result: string | null;
  created_at: string;
  updated_at: string;
}

/** WF-2 (migration 026): the per-task stop switch. */
export interface WorkflowTaskStopsTable {
  task_id: string;
  stopped: number;
  updated_at: string;
}
