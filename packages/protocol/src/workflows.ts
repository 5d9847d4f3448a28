import { z } from "zod";

/** WF-1: the board's columns; a workflow's steps are these columns with behaviour attached. */
export const WorkflowStepId = z.enum(["todo", "in_progress", "review", "done", "failed"]);
export type WorkflowStepId = z.infer<typeof WorkflowStepId>;

/**
 * WF-1: one stored workflow. `source` is its YAML as stored (a JSON body is stored as the
 * YAML it is equivalent to, so `details.line` of a later error names a line of `source`);
 * `version` counts every accepted PUT (compare-and-set, WF-1); `stopped` is the per-workflow
 * stop switch (WF-2); `builtIn` marks the default workflow, the plain board.
 */
export const Workflow = z.object({
  name: z.string(),
  repositoryId: z.string().nullable(),
  version: z.number().int(),
  source: z.string(),
  steps: z.array(
    z.object({
      id: WorkflowStepId,
      wipLimit: z.number().int().optional(),
      guard: z.string().optional(),
      onEnter: z.array(z.record(z.string(), z.unknown())),
      on: z.record(z.string(), z.string()),
    }),
  ),
  stopped: z.boolean(),
  builtIn: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Workflow = z.infer<typeof Workflow>;

/** `PUT /workflows/:name` with a JSON body: the definition itself, optionally with the version it replaces. */
export const PutWorkflowQuery = z.object({
  /** Compare-and-set: refused (`409 workflow_version_conflict`) unless the stored version is this one (0 = must not exist). */
  ifVersion: z.coerce.number().int().min(0).optional(),
});

/** `PATCH /workflows/:name` · `PUT /tasks/:id/workflow`: the stop switches (WF-2). */
export const WorkflowStopBody = z.object({ stopped: z.boolean() }).strict();

/** WF-2: one automated action of a task's workflow, as it ran (or is about to). */
export const WorkflowRun = z.object({
  id: z.string(),
  taskId: z.string(),
  workflow: z.string(),
  version: z.number().int(),
  step: z.string(),
  action: z.string(),
  /** Why it ran: the step entry (`enter`) or a trigger (`checks_failed`, `merged`, `turn_outcome`). */
  cause: z.string(),
  state: z.enum(["pending", "running", "succeeded", "failed", "cancelled", "skipped"]),
  outcome: z.string().nullable(),
  sessionId: z.string().nullable(),
  /** WF-2.13: a `run` action's command: its exit code (null when killed), whether it timed out, the end of its output (at most 4 KiB). */
  result: z.object({ exitCode: z.number().int().nullable(), timedOut: z.boolean(), output: z.string() }).optional(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type WorkflowRun = z.infer<typeof WorkflowRun>;

/** `workflow.run` frames (WEB-34, docs/specs/workflows.md): one per run state change. */
export interface WorkflowRunFrame {
  taskId: string;
  workflow: string;
  step: string;
  action: string;
  outcome: string;
  run: WorkflowRun;
}
