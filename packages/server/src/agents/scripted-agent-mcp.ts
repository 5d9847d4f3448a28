import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { McpServer } from "@agentclientprotocol/sdk";

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
      const client = new Client({ name: "grove-scripted", version: "1.0.0" });
      c = client.connect(new StdioClientTransport({ command: spec.command, args: spec.args, env, stderr: "inherit" })).then(() => client);
      c.catch(() => this.clients.delete(key));
      this.clients.set(key, c);
    }
    return c;
  }
}
