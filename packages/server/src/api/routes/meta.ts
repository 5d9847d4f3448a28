import type { META_OPERATIONS } from "@grove/protocol/operations";
import type { Orchestrator } from "../../orchestrator/orchestrator.js";
import { openApiDocument } from "../openapi-document.js";
import type { HandlersOf } from "../operation-routes.js";

/** Health, agent profiles, the runners registry and this API's document (the event stream: events.ts). */
export function metaHandlers(
  orch: Orchestrator,
  info: { version: string; database: "sqlite" | "postgres"; runnerId: string },
): Omit<HandlersOf<typeof META_OPERATIONS>, "subscribeEvents"> {
  // Built on first request, not at start-up: converting every schema takes a tenth of the time
  // to `listening`, and most servers never serve it.
  let doc: unknown;
  return {
    getHealth: async () => ({ status: "ok", ...info }),
    listAgentProfiles: async () => orch.agentProfiles(),
    listRunners: async () => orch.runners.list(),
    getOpenApiDocument: async () => (doc ??= openApiDocument(info.version)),
  };
}
