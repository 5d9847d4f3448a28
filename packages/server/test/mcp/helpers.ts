import { randomBytes } from "node:crypto";
import { resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { makeRepo } from "../fixture/git.js";
import type { TestServer } from "../fixture/server.js";
import { waitFor, waitForSession } from "../fixture/server.js";

export type Msg = { id: string; role: string; text: string; data?: any };

export const SHIM = resolve(import.meta.dirname, "..", "..", "bin", "grove-mcp.mjs");

export async function messages(srv: TestServer, sessionId: string): Promise<Msg[]> {
  return (await srv.api("GET", `/sessions/${sessionId}/messages`)).body as Msg[];
}

/** The JSON of every `mcp: <json>` answer of the scripted agent in the session, in order. */
export async function mcpAnswers(srv: TestServer, sessionId: string): Promise<any[]> {
  return (await messages(srv, sessionId)).filter((m) => m.role === "agent" && m.text.startsWith("mcp: ")).map((m) => JSON.parse(m.text.slice(5)));
}

/** Runs a script in a new session of the task and waits for its turn to end. */
export async function runSession(srv: TestServer, taskId: string, script: string, agent?: string): Promise<string> {
  const s = await srv.api("POST", `/tasks/${taskId}/sessions`, { prompt: script, ...(agent ? { agent } : {}) });
  if (s.status !== 201) throw new Error(`session: ${s.status} ${JSON.stringify(s.body)}`);
  await waitForSession(srv.api, s.body.id, ["waiting_for_input", "failed"], 60_000);
  return s.body.id as string;
}

/** A task with a brief on a fresh repository. */
export async function briefTask(srv: TestServer, title: string, description: string, files?: Record<string, string>) {
  const repo = await makeRepo({ name: `repo-${randomBytes(4).toString("hex")}`, ...(files ? { files } : {}) });
  const r = await srv.api("POST", "/repositories", { path: repo.path });
  if (r.status !== 201) throw new Error(`repository: ${r.status} ${JSON.stringify(r.body)}`);
  const t = await srv.api("POST", "/tasks", { title, description, repositories: [{ repositoryId: r.body.id }] });
  if (t.status !== 201) throw new Error(`task: ${t.status} ${JSON.stringify(t.body)}`);
  return { repo, repository: r.body, task: t.body };
}

/**
 * Records every token the server mints (tests only: a token is never in any answer), so a test
 * can speak to the gateway itself with one that is stale or another session's.
 */
export function captureTokens(srv: TestServer): Map<string, string[]> {
  const tokens = srv.server.deps.mcp!.tokens;
  const seen = new Map<string, string[]>();
  const mint = tokens.mint.bind(tokens);
  tokens.mint = (sessionId, ...rest) => {
    const t = mint(sessionId, ...rest);
    seen.set(sessionId, [...(seen.get(sessionId) ?? []), t]);
    return t;
  };
  return seen;
}

/** An MCP client through the real shim, speaking for `sessionId` with `token`. */
export async function shimClient(srv: TestServer, sessionId: string, token: string): Promise<Client> {
  const client = new Client({ name: "test", version: "1.0.0" });
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    GROVE_MCP_SOCKET: srv.server.deps.mcp!.socketPath,
    GROVE_MCP_SESSION: sessionId,
    GROVE_MCP_TOKEN: token,
  };
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [SHIM], env }));
  return client;
}

/** One tool call through `client`: the parsed JSON text and whether it is an error. */
export async function callTool(client: Client, name: string, args: Record<string, unknown> = {}): Promise<{ json: any; isError: boolean }> {
  const res = await client.callTool({ name, arguments: args });
  const text = (res.content as { type: string; text: string }[]).map((c) => c.text).join("");
  return { json: JSON.parse(text), isError: res.isError === true };
}

export { waitFor };
