import type { FastifyInstance } from "fastify";
import { SetModeBody, SetModelBody } from "@grove/protocol";
import { sessionView } from "../../domain/views.js";
import type { Orchestrator } from "../../orchestrator/orchestrator.js";
import { parse } from "../validate.js";

type Id = { Params: { id: string } };
type Name = { Params: { name: string } };

/** AG-2 (modes and models of a session's agent) and AG-3 (installing and checking agents). */
export function agentRoutes(app: FastifyInstance, orch: Orchestrator): void {
  app.post<Id>("/sessions/:id/mode", async (req) => sessionView(await orch.setMode(req.params.id, parse(SetModeBody, req.body).modeId)));
  app.post<Id>("/sessions/:id/model", async (req) => sessionView(await orch.setModel(req.params.id, parse(SetModelBody, req.body).modelId)));
  app.post<Name>("/agents/:name/install", async (req) => orch.installAgent(req.params.name));
  app.post<Name>("/agents/:name/check", async (req) => orch.checkAgent(req.params.name));
}
