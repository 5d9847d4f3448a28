import { z } from "zod";
import { AgentBudget } from "./usage.js";

/** Agent profiles of the HTTP API. Fields may be added; none may be renamed (clients depend on the names). */

export const PermissionPolicy = z.enum(["auto_approve", "ask"]);

export const AgentProfile = z.object({
  name: z.string(),
  command: z.string(),
  args: z.array(z.string()),
  env: z.array(z.string()),
  permissionPolicy: PermissionPolicy,
  builtIn: z.boolean(),
  /** SEC-7: names of server environment variables the agent inherits beyond the base allow-list. */
  inheritEnv: z.array(z.string()).optional(),
  /** AG-3: the command is found / the pinned package is installed. */
  available: z.boolean().optional(),
  /** AG-3: the agent's version (from its cached `initialize`, else the installed package). */
  version: z.string().optional(),
  /** AG-3: the auth methods from the cached `initialize`. */
  authMethods: z.array(z.object({ id: z.string(), name: z.string(), description: z.string().optional() })).optional(),
  /** AG-3: the pinned package of a built-in bridge, `name@version`. */
  package: z.string().optional(),
  /** AG-3: why the agent is not available, and what fixes it. */
  problem: z.string().optional(),
  /** AG-2: why this agent would not ask under `permissionPolicy: "ask"` (`grove agents check` flags it). */
  askProblem: z.string().optional(),
  /** SBX-3: `off` when the profile opts out of the OS sandbox. */
  sandbox: z.enum(["confined", "off"]).optional(),
  /** USE-2: the profile's daily cap and today's spend of its sessions over every runner (on `GET /agents` and the budget routes). */
  budget: AgentBudget.optional(),
});
export type AgentProfile = z.infer<typeof AgentProfile>;
