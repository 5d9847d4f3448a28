import type { AGENT_OPERATIONS } from "@grove/protocol/operations";
import { sessionView } from "../../domain/views.js";
import type { Orchestrator } from "../../orchestrator/orchestrator.js";
import type { HandlersOf } from "../operation-routes.js";

/** AG-2 (modes and models of a session's agent) and AG-3 (installing and checking agents). */
export function agentHandlers(orch: Orchestrator): HandlersOf<typeof AGENT_OPERATIONS> {
  return {
    setSessionMode: async ({ params, body }) => sessionView(await orch.setMode(params.id, body.modeId)),
    setSessionModel: async ({ params, body }) => sessionView(await orch.setModel(params.id, body.modelId)),
    installAgent: async ({ params }) => orch.installAgent(params.name),
    checkAgent: async ({ params }) => orch.checkAgent(params.name),
  };
}
