import type { FastifyInstance } from "fastify";
import { PutWorkflowQuery, WorkflowStopBody } from "@grove/protocol";
import type { Orchestrator } from "../../orchestrator/orchestrator.js";
import { workflowView } from "../../orchestrator/workflows/workflow-defs.js";
import { workflowRunView } from "../../domain/workflow-run.js";
import { parse } from "../validate.js";

type Name = { Params: { name: string } };
type Id = { Params: { id: string } };

/**
 * WF-1/WF-2. A workflow travels as JSON (SEC-5: every state-changing request is JSON): the
 * YAML text as a JSON string or `{source}`, or the definition as a JSON object.
 */
export function workflowRoutes(app: FastifyInstance, orch: Orchestrator): void {
  app.get("/workflows", async () => (await orch.workflows.list()).map(workflowView));
  app.get<Name>("/workflows/:name", async (req) => workflowView(await orch.workflows.get(req.params.name)));
  app.put<Name>("/workflows/:name", async (req) => {
    const { ifVersion } = parse(PutWorkflowQuery, req.query, "query");
    const body = req.body as unknown;
    const source = isSourceOnly(body) ? body.source : body;
    return workflowView(await orch.workflows.put(req.params.name, source, ifVersion));
  });
  app.delete<Name>("/workflows/:name", async (req, reply) => {
    await orch.workflows.remove(req.params.name);
    return reply.status(204).send();
  });
  app.patch<Name>("/workflows/:name", async (req) => workflowView(await orch.workflows.setStopped(req.params.name, parse(WorkflowStopBody, req.body).stopped)));
  app.get<Id>("/tasks/:id/workflow-runs", async (req) => (await orch.workflows.runs(req.params.id)).map(workflowRunView));
  app.put<Id>("/tasks/:id/workflow", async (req) => orch.workflows.setTaskStopped(req.params.id, parse(WorkflowStopBody, req.body).stopped));
}

function isSourceOnly(body: unknown): body is { source: string } {
  return body !== null && typeof body === "object" && Object.keys(body).length === 1 && typeof (body as { source?: unknown }).source === "string";
}
