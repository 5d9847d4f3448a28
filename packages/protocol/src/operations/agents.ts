import { z } from "zod";
import { AgentProfile, Session, SetModeBody, SetModelBody } from "../index.js";
import { operation } from "./operation.js";

/** AG-2 (a session agent's mode and model) and AG-3 (installing and checking agents). */
export const AGENT_OPERATIONS = {
  setSessionMode: operation({
    method: "post",
    path: "/sessions/{id}/mode",
    summary: "Switch the agent's mode (AG-2, session/set_mode)",
    body: SetModeBody,
    response: Session,
    errors: ["not_found", "invalid_request", "agent_option_unsupported"],
    forward: { scope: "session" },
    personOnly: true,
  }),
  setSessionModel: operation({
    method: "post",
    path: "/sessions/{id}/model",
    summary: "Switch the agent's model (AG-2, session/set_config_option)",
    body: SetModelBody,
    response: Session,
    errors: ["not_found", "invalid_request", "agent_option_unsupported"],
    forward: { scope: "session" },
    personOnly: true,
  }),
  installAgent: operation({
    method: "post",
    path: "/agents/{name}/install",
    summary: "Install the pinned bridge into GROVE_HOME/agents (AG-3, idempotent)",
    response: AgentProfile,
    errors: ["agent_unknown", "agent_unavailable", "invalid_request"],
  }),
  checkAgent: operation({
    method: "post",
    path: "/agents/{name}/check",
    summary: "Start the agent for initialize only, confined as a session would be; caches version and auth methods (AG-3, SBX-1)",
    // startMs: how long the agent took to answer `initialize`.
    response: AgentProfile.extend({ startMs: z.number().optional() }),
    errors: ["agent_unknown", "agent_unavailable", "agent_start_failed", "sandbox_unavailable"],
  }),
};
