import { z } from "zod";
import { PutWorkflowQuery, Workflow, WorkflowRun, WorkflowStopBody } from "../index.js";
import { operation } from "./operation.js";

/**
 * `PUT /workflows/:name`: the YAML as a JSON string or `{source}`, or the definition as a JSON
 * object (SEC-5: every state-changing request is JSON). The workflow parser tells them apart and
 * names the line of a mistake, so the server hands the body over as sent.
 */
export const PutWorkflowBody = z.union([z.string(), z.object({ source: z.string() }), z.record(z.string(), z.unknown())]);

/** WF-1 workflows and WF-2 their runs and stop switches. */
export const WORKFLOW_OPERATIONS = {
  listWorkflows: operation({
    method: "get",
    path: "/workflows",
    summary: "WF-1: the workflows, the built-in default (the plain board) first",
    response: z.array(Workflow),
  }),
  getWorkflow: operation({
    method: "get",
    path: "/workflows/{name}",
    summary: "WF-1: one workflow with its YAML source",
    response: Workflow,
    errors: ["not_found"],
  }),
  putWorkflow: operation({
    method: "put",
    path: "/workflows/{name}",
    summary:
      "WF-1: store a new version of a workflow: its YAML as a JSON string or {source}, or its definition as a JSON object; ifVersion makes it a compare-and-set",
    query: PutWorkflowQuery,
    queryDocs: { ifVersion: "the stored version this write replaces (0: must not exist yet)" },
    body: PutWorkflowBody,
    rawBody: true,
    response: Workflow,
    errors: ["invalid_workflow", "invalid_request", "workflow_builtin", "workflow_version_conflict"],
  }),
  deleteWorkflow: operation({
    method: "delete",
    path: "/workflows/{name}",
    summary: "WF-1: delete a workflow (its runs stay in the tasks' history)",
    status: 204,
    errors: ["not_found", "workflow_builtin"],
  }),
  setWorkflowStopped: operation({
    method: "patch",
    path: "/workflows/{name}",
    summary: "WF-2: the per-workflow stop switch ({stopped}); stopping cancels its pending runs",
    body: WorkflowStopBody,
    response: Workflow,
    errors: ["not_found", "workflow_builtin", "invalid_request"],
  }),
  listWorkflowRuns: operation({
    method: "get",
    path: "/tasks/{id}/workflow-runs",
    summary: "WF-2: every automated action of the task's workflow: what ran, why, its outcome (live as workflow.run frames)",
    response: z.array(WorkflowRun),
    errors: ["not_found"],
  }),
  setTaskWorkflowStopped: operation({
    method: "put",
    path: "/tasks/{id}/workflow",
    summary: "WF-2: the per-task stop switch ({stopped}); stopping cancels the task's runs in progress",
    body: WorkflowStopBody,
    response: z.object({ taskId: z.string(), stopped: z.boolean() }),
    errors: ["not_found", "invalid_request"],
  }),
};
