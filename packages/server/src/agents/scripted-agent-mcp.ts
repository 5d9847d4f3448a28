import type { McpServer } from "@agentclientprotocol/sdk";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";

/**
 * Starts one stdio MCP server and connects a client to it. The SDK is loaded here, on the first
 * `mcp` command, not when the program starts: it is most of the bundle, and every scripted agent
 * (one per session in the tests) would otherwise pay for parsing it at start-up.
 */
async function connect(command: string, args: string[], env: Record<string, string>): Promise<Client> {
  const [{ Client }, { StdioClientTransport }] = await Promise.all([
    import("@modelcontextprotocol/sdk/client/index.js"),
    import("@modelcontextprotocol/sdk/client/stdio.js"),
  ]);
  const client = new Client({ name: "grove-scripted", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command, args, env, stderr: "inherit" }));
  return client;
}

/**
 * The scripted agent's MCP client (`mcp <tool> <json>`, MCP-1): like a real agent, it starts
 * each stdio MCP server of its `session/new` / `session/load` itself, as an MCP client through
 * the official SDK, and calls tools on it. One client per session and server, started on first
 * use; part of the scripted agent program.
 */
export class ScriptedMcpClients {
  private readonly clients = new Map<string, Promise<Client>>();

  /** Calls `tool` on the session's server named `server`; the result's text, and whether it is an error. */
  async call(
    sessionId: string,
    servers: readonly McpServer[],
    server: string,
    tool: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<{ text: string; isError: boolean }> {
    const client = await this.client(sessionId, servers, server);
    // ask_user may wait for a person up to its own bound (30 minutes by default).
    const res = await client.callTool({ name: tool, arguments: args }, undefined, { signal, timeout: 36 * 60_000 });
    const content = Array.isArray(res.content) ? (res.content as { type: string; text?: string }[]) : [];
    return { text: content.map((c) => (c.type === "text" ? (c.text ?? "") : "")).join(""), isError: res.isError === true };
  }

  /** Closes the session's clients (their servers exit). */
  async forget(sessionId: string): Promise<void> {
    for (const [key, c] of this.clients) {
      if (!key.startsWith(`${sessionId}\n`)) continue;
      this.clients.delete(key);
      await c.then((x) => x.close()).catch(() => undefined);
    }
  }

  private client(sessionId: string, servers: readonly McpServer[], name: string): Promise<Client> {
    const key = `${sessionId}\n${name}`;
    let c = this.clients.get(key);
    if (!c) {
      const spec = servers.find((s) => s.name === name);
      if (!spec || !("command" in spec)) return Promise.reject(new Error(`no stdio MCP server named ${name} in this session`));
      const env: Record<string, string> = {};
      for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
      for (const e of spec.env) env[e.name] = e.value;
      c = connect(spec.command, spec.args, env);
      c.catch(() => this.clients.delete(key));
      this.clients.set(key, c);
    }
    return c;
  }
}
