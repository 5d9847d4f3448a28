import { chmodSync, rmSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { createHash } from "node:crypto";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { AppError, isAppError } from "../domain/errors.js";
import { CallRateLimit } from "./rate-limit.js";
import { servedToolNames, TOOL_CATALOG, type ToolName } from "./tool-catalog.js";
import type { McpGrant, McpTokens } from "./tokens.js";
import { privateSocketDir, SOCKET_PATH_MAX } from "../socket-dir.js";

/**
 * MCP-1: where the gateway listens: `GROVE_HOME/run/mcp.sock`, or (a home too deep for a Unix
 * socket path) a directory of this home's own under the system tmp dir.
 */
export function mcpSocketPath(home: string): string {
  const inHome = join(home, "run", "mcp.sock");
  if (Buffer.byteLength(inHome) <= SOCKET_PATH_MAX) return inHome;
  return join(tmpdir(), `grove-mcp-${createHash("sha256").update(home).digest("hex").slice(0, 16)}`, "mcp.sock");
}

/** The outcome of one call, as the transcript records it. */
export type CallOutcome = { ok: true } | { ok: false; code: string; message: string };

/** The use cases behind the tools (the orchestrator implements them). */
export interface McpBackend {
  /** Runs `tool` for the grant's session; throws an AppError to refuse. `signal`: the client went away. */
  call(grant: McpGrant, tool: ToolName, args: Record<string, unknown>, signal: AbortSignal): Promise<unknown>;
  /** MCP-2: every call of a valid token is a transcript tool row of its session. */
  record(grant: McpGrant, tool: ToolName, args: Record<string, unknown>, outcome: CallOutcome): void;
}

export interface GatewayOptions {
  tokens: McpTokens;
  backend: McpBackend;
  log: { warn(obj: object, msg?: string): void };
  /** MCP-2: calls per minute per session (default 120). */
  callsPerMinute?: number;
  version: string;
}

/** The first line a shim sends on the socket: which session it speaks for, and its token. */
interface Hello {
  sessionId: string;
  token: string;
}

const HELLO_MAX_BYTES = 4096;

/**
 * MCP-1: Grove's MCP server behind a Unix socket — the sandbox's only door to Grove. The stdio
 * shim an agent starts connects, sends one hello line (session id and capability token), and
 * from then on the socket carries the MCP session (newline-delimited JSON-RPC, served by the
 * official SDK). The token is checked on every call, so a session that ended (or a task that
 * was archived) is refused from its next call on, even on a connection opened before.
 */
export class McpGateway {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private readonly limit: CallRateLimit;

  constructor(private readonly opts: GatewayOptions) {
    this.limit = new CallRateLimit(opts.callsPerMinute ?? 120, 60_000);
  }

  async listen(socketPath: string): Promise<void> {
    privateSocketDir(dirname(socketPath));
    rmSync(socketPath, { force: true });
    const server = createServer((socket) => this.accept(socket));
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(socketPath, () => {
        server.off("error", reject);
        resolve();
      });
    });
    // Only this user's processes (and the sandboxes it binds the socket into) may connect.
    chmodSync(socketPath, 0o600);
    this.server = server;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private accept(socket: Socket): void {
    this.sockets.add(socket);
    socket.on("close", () => this.sockets.delete(socket));
    socket.on("error", () => socket.destroy());
    let buf = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      const nl = buf.indexOf(0x0a);
      if (nl < 0) {
        if (buf.length > HELLO_MAX_BYTES) socket.destroy();
        return;
      }
      socket.off("data", onData);
      socket.pause();
      const hello = parseHello(buf.subarray(0, nl).toString("utf8"));
      if (!hello) return void socket.destroy();
      const rest = buf.subarray(nl + 1);
      if (rest.length > 0) socket.unshift(rest);
      void this.serve(socket, hello).catch((err: unknown) => {
        this.opts.log.warn({ err }, "mcp: serving a connection failed");
        socket.destroy();
      });
    };
    socket.on("data", onData);
  }

  private async serve(socket: Socket, hello: Hello): Promise<void> {
    const server = new McpServer({ name: "grove", version: this.opts.version });
    const aborted = new AbortController();
    socket.once("close", () => aborted.abort());
    // MCP-1: the names this session's profile serves (a renamed tool only under its new name).
    // A token that is not valid gets the catalog's names; each of its calls is refused anyway.
    const served = servedToolNames(this.opts.tokens.check(hello.sessionId, hello.token)?.toolNames);
    for (const [name, tool] of served) {
      const spec = TOOL_CATALOG[tool];
      server.registerTool(name, { description: spec.description, inputSchema: spec.input }, async (args: Record<string, unknown>) =>
        this.call(hello, tool, args ?? {}, aborted.signal),
      );
    }
    // The SDK lists the tools with their schemas; calls are checked here instead, so malformed
    // arguments get a typed `invalid_request` like every other refusal (and unknown fields too).
    server.server.setRequestHandler(CallToolRequestSchema, async (req) => {
      const tool = served.get(req.params.name);
      if (!tool) return failure(new AppError("invalid_request", `no tool named ${req.params.name}`, { field: "name" }));
      return this.call(hello, tool, req.params.arguments ?? {}, aborted.signal);
    });
    await server.connect(new StdioServerTransport(socket, socket));
    // Paused while the hello was read; a new 'data' listener does not resume an explicit pause.
    socket.resume();
  }

  private async call(
    hello: Hello,
    tool: ToolName,
    args: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<{ content: { type: "text"; text: string }[]; isError?: boolean }> {
    const grant = this.opts.tokens.check(hello.sessionId, hello.token);
    if (!grant)
      return failure(
        new AppError("mcp_token_invalid", "this MCP token is not valid (its session ended, its task was archived, or it belongs to another session)"),
      );
    const wait = this.limit.take(grant.sessionId);
    if (wait > 0) {
      const e = new AppError("mcp_rate_limited", `too many MCP calls from this session; retry in ${wait} ms`, { retryAfterMs: wait });
      this.opts.backend.record(grant, tool, args, { ok: false, code: e.code, message: e.message });
      return failure(e);
    }
    try {
      const result = await this.opts.backend.call(grant, tool, checkArgs(tool, args), signal);
      this.opts.backend.record(grant, tool, args, { ok: true });
      return { content: [{ type: "text", text: JSON.stringify(result ?? null) }] };
    } catch (e) {
      const err = isAppError(e) ? e : new AppError("internal_error", "the tool failed");
      if (!isAppError(e)) this.opts.log.warn({ err: e, tool }, "mcp: a tool failed");
      this.opts.backend.record(grant, tool, args, { ok: false, code: err.code, message: err.message });
      return failure(err);
    }
  }
}

function failure(e: AppError): { content: { type: "text"; text: string }[]; isError: true } {
  return {
    content: [{ type: "text", text: JSON.stringify({ error: { code: e.code, message: e.message, ...(e.details ? { details: e.details } : {}) } }) }],
    isError: true,
  };
}

/** The arguments as the tool's schema reads them; `invalid_request` naming the first bad field. */
function checkArgs(tool: ToolName, args: Record<string, unknown>): Record<string, unknown> {
  const parsed = z.object(TOOL_CATALOG[tool].input).strict().safeParse(args);
  if (parsed.success) return parsed.data as Record<string, unknown>;
  const issue = parsed.error.issues[0];
  const keys = issue && "keys" in issue ? (issue as { keys: string[] }).keys : [];
  const field = issue?.path.join(".") || keys[0] || "";
  throw new AppError("invalid_request", `invalid arguments for ${tool}: ${issue?.message ?? "invalid"}${field ? ` (${field})` : ""}`, { field });
}

function parseHello(line: string): Hello | undefined {
  try {
    const v = JSON.parse(line) as Partial<Hello>;
    return typeof v.sessionId === "string" && typeof v.token === "string" ? { sessionId: v.sessionId, token: v.token } : undefined;
  } catch {
    return undefined;
  }
}
