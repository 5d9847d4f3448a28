import type { McpServerEntry } from "../../agents/agent-contract.js";
import type { SessionRecord } from "../../domain/records.js";
import type { McpToolNames } from "../../mcp/tool-catalog.js";
import type { Deps } from "../context.js";

/** Where the gateway's socket appears inside a sandbox (its own empty `/run`). */
export const MCP_SOCKET_INSIDE = "/run/grove-mcp.sock";

/** The `grove` MCP server one agent start hands its agent, and how to take it back. */
export interface SessionMcp {
  servers: McpServerEntry[];
  /** The bind that makes the socket reachable inside the sandbox (confined agents). */
  bind: { socket: string; inside: string } | undefined;
  /** The shim's files, which must stay visible inside the sandbox. */
  program: string[];
  /** MCP-1: this start's token stops working (the agent exited, or its start failed). */
  revoke(): void;
}

/**
 * MCP-1: mints the session's capability token and builds the stdio server entry named `grove`
 * that `session/new` and `session/load` carry. A confined agent reaches the socket where the
 * sandbox binds it; an unconfined one at its host path. The token lives only in this entry
 * (the ACP log redacts it) and in the token registry's memory.
 */
export function sessionMcp(
  deps: Pick<Deps, "mcp">,
  session: SessionRecord,
  confined: boolean,
  scope: "task" | "none" | "board" = "task",
  toolNames?: McpToolNames,
): SessionMcp | undefined {
  const mcp = deps.mcp;
  // MCP-2: a profile with `mcp: "none"` gets no grove server at all.
  if (!mcp || scope === "none") return undefined;
  const token = mcp.tokens.mint(session.id, session.taskId, scope, toolNames);
  return {
    servers: [
      {
        name: "grove",
        command: mcp.shim.command,
        args: mcp.shim.args,
        env: [
          { name: "GROVE_MCP_SOCKET", value: confined ? MCP_SOCKET_INSIDE : mcp.socketPath },
          { name: "GROVE_MCP_SESSION", value: session.id },
          { name: "GROVE_MCP_TOKEN", value: token },
        ],
      },
    ],
    bind: confined ? { socket: mcp.socketPath, inside: MCP_SOCKET_INSIDE } : undefined,
    program: mcp.shim.args.filter((a) => a.startsWith("/")),
    revoke: () => mcp.tokens.revoke(session.id, token),
  };
}
