import { z } from "zod";
import { AgentProfile, Health, Runner } from "../index.js";
import { operation } from "./operation.js";

/** Health, the agent profiles, the runners registry, this API's own document and the event stream. */
export const META_OPERATIONS = {
  getHealth: operation({ method: "get", path: "/health", summary: "Liveness, version, database kind and runner id", response: Health }),
  listAgentProfiles: operation({
    method: "get",
    path: "/agents",
    summary: "Agent profiles with availability, version and auth methods (AG-3)",
    response: z.array(AgentProfile),
  }),
  listRunners: operation({
    method: "get",
    path: "/runners",
    summary: "The runners registered in the shared database, with live load and online/offline state",
    response: z.array(Runner),
  }),
  getOpenApiDocument: operation({ method: "get", path: "/openapi.json", summary: "This document" }),
  subscribeEvents: operation({ method: "get", path: "/events", summary: "WebSocket event stream (frames {type,data,at})", websocket: true }),
};
