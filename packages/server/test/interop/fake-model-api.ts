import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** What the scripted "model" answers to one main-conversation request. */
export type ModelReply =
  | { text: string; chunkDelayMs?: number; chunks?: number }
  | { toolUse: { name: string; input: Record<string, unknown> }; text?: string };

/** One request as a fake model API received it; `main` = the agent's conversation (it offers tools). */
export interface ModelRequest<Body> {
  path: string;
  main: boolean;
  body: Body;
  /** The request's `authorization` header (or `x-api-key` / `x-goog-api-key`), if any: which key reached the model. */
  auth?: string;
}

/**
 * The loopback HTTP part every fake model API shares (test-only: there is no model here): a
 * server on a free port, the requests it saw, streams cut on close. Subclasses speak one
 * vendor's wire format in `respond`, asking `script` for the main conversation's replies.
 */
export abstract class FakeModelApi<Body extends object> {
  readonly requests: ModelRequest<Body>[] = [];
  private server: Server | undefined;
  private readonly open = new Set<ServerResponse>();
  url = "";

  constructor(public script: (req: ModelRequest<Body>, mainIndex: number) => ModelReply) {}

  async start(): Promise<void> {
    this.server = createServer((req, res) => void this.receive(req, res));
    await new Promise<void>((r) => this.server!.listen(0, "127.0.0.1", r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    for (const r of this.open) r.destroy();
    await new Promise<void>((r) => this.server?.close(() => r()) ?? r());
  }

  /** The main-conversation requests, in order. */
  get main(): ModelRequest<Body>[] {
    return this.requests.filter((r) => r.main);
  }

  /** Answers one request whose body was read (`{}` when it was not JSON). */
  protected abstract respond(req: IncomingMessage, res: ServerResponse, path: string, body: Body): Promise<void>;

  /** The credential a request carried (see {@link ModelRequest.auth}). */
  protected authOf(req: IncomingMessage): { auth?: string } {
    const h = req.headers.authorization ?? req.headers["x-api-key"] ?? req.headers["x-goog-api-key"];
    const v = Array.isArray(h) ? h[0] : h;
    return v ? { auth: v } : {};
  }

  /** A streamed answer: kept open until it ends, destroyed by `close`. */
  protected streaming(res: ServerResponse): void {
    this.open.add(res);
    res.on("close", () => this.open.delete(res));
  }

  private async receive(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString("utf8");
    const path = (req.url ?? "").split("?")[0] ?? "";
    let body = {} as Body;
    try {
      body = raw ? (JSON.parse(raw) as Body) : body;
    } catch {
      // not JSON: answered like any unknown request
    }
    await this.respond(req, res, path, body);
  }
}
