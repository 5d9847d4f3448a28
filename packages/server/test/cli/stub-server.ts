/**
 * A stand-in for the Grove HTTP API, used ONLY by the CLI tests for formatting, exit codes and
 * argument parsing (the real server is tested against the real CLI elsewhere). It answers the
 * routes a test registers and records every request it receives.
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  body: unknown;
}

export interface StubAnswer {
  status?: number;
  /** JSON-encoded unless `raw` is set; omitted for an empty body. */
  body?: unknown;
  raw?: string;
}

type Handler = (req: RecordedRequest) => StubAnswer;

export interface StubServer {
  url: string;
  requests: RecordedRequest[];
  /** Registers `METHOD /api/v1/path` (exact path, no parameters). */
  on(route: string, handler: Handler | StubAnswer): void;
  close(): Promise<void>;
}

export async function startStubServer(): Promise<StubServer> {
  const routes = new Map<string, Handler>();
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://stub");
      const text = Buffer.concat(chunks).toString("utf8");
      const recorded: RecordedRequest = {
        method: req.method ?? "GET",
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        headers: req.headers,
        body: text === "" ? undefined : (JSON.parse(text) as unknown),
      };
      requests.push(recorded);
      const handler = routes.get(`${recorded.method} ${recorded.path}`);
      const answer: StubAnswer = handler
        ? handler(recorded)
        : { status: 404, body: { error: { code: "not_found", message: `no route ${recorded.method} ${recorded.path}`, details: {} } } };
      const payload = answer.raw ?? (answer.body === undefined ? "" : JSON.stringify(answer.body));
      res.writeHead(answer.status ?? 200, payload === "" || answer.raw !== undefined ? {} : { "content-type": "application/json" });
      res.end(payload);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    on(route, handler) {
      routes.set(route, typeof handler === "function" ? handler : () => handler);
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
