import type { WORKFLOW_OPERATIONS } from "@grove/protocol/operations";
import type { Orchestrator } from "../../orchestrator/orchestrator.js";
import { workflowView } from "../../orchestrator/workflows/workflow-defs.js";
import { workflowRunView } from "../../domain/workflow-run.js";
import type { HandlersOf } from "../operation-routes.js";

/**
 * WF-1/WF-2. A workflow travels as JSON (SEC-5: every state-changing request is JSON): the
 * YAML text as a JSON string or `{source}`, or the definition as a JSON object.
 */
export function workflowHandlers(orch: Orchestrator): HandlersOf<typeof WORKFLOW_OPERATIONS> {
  return {
    listWorkflows: async () => (await orch.workflows.list()).map(workflowView),
    getWorkflow: async ({ params }) => workflowView(await orch.workflows.get(params.name)),
    putWorkflow: async ({ params, query, body }) => {
      const source = isSourceOnly(body) ? body.source : body;
      return workflowView(await orch.workflows.put(params.name, source, query.ifVersion));
    },
    deleteWorkflow: async ({ params }) => {
      await orch.workflows.remove(params.name);
      return undefined;
    },
    setWorkflowStopped: async ({ params, body }) => workflowView(await orch.workflows.setStopped(params.name, body.stopped)),
    listWorkflowRuns: async ({ params }) => (await orch.workflows.runs(params.id)).map(workflowRunView),
    setTaskWorkflowStopped: async ({ params, body }) => orch.workflows.setTaskStopped(params.id, body.stopped),
  };
}

function isSourceOnly(body: unknown): body is { source: string } {
  return body !== null && typeof body === "object" && Object.keys(body).length === 1 && typeof (body as { source?: unknown }).source === "string";
}
