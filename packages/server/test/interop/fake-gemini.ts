import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { ModelReply } from "./fake-anthropic.js";

type Part = { text?: string; functionCall?: { name: string; args?: unknown }; functionResponse?: { name: string; response?: unknown } };

/** One request as the fake received it (the conversation the model was shown). */
export interface GeminiRequest {
  path: string;
  main: boolean;
  body: {
    contents?: { role: string; parts?: Part[] }[];
    tools?: { functionDeclarations?: { name: string }[] }[];
    generationConfig?: { responseMimeType?: string; responseJsonSchema?: unknown; responseSchema?: unknown };
  };
}

/**
 * A fake Gemini API on loopback (test-only: there is no model here): `models/<m>:generateContent`
 * answers JSON, `models/<m>:streamGenerateContent?alt=sse` streams `data:` chunks like the real
 * one, `:countTokens` counts. Requests that offer the agent's `write_file` tool are the main
 * conversation and go to `script`; side requests (the model router, the next-speaker check,
 * titles) get a JSON text that satisfies each of them.
 */
export class FakeGemini {
  readonly requests: GeminiRequest[] = [];
  private server: Server | undefined;
  private open = new Set<ServerResponse>();
  url = "";

  constructor(public script: (req: GeminiRequest, mainIndex: number) => ModelReply) {}

  async start(): Promise<void> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((r) => this.server!.listen(0, "127.0.0.1", r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    for (const r of this.open) r.destroy();
    await new Promise<void>((r) => this.server?.close(() => r()) ?? r());
  }

  /** The main-conversation requests, in order. */
  get main(): GeminiRequest[] {
    return this.requests.filter((r) => r.main);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString("utf8");
    const path = (req.url ?? "").split("?")[0] ?? "";
    let body: GeminiRequest["body"] = {};
    try {
      body = raw ? JSON.parse(raw) : {};
    } catch {
      // not JSON: answered below like any unknown request
    }
    const action = /^\/v1(?:beta|alpha)?\/models\/[^:]+:(\w+)$/.exec(path)?.[1];
    if (req.method !== "POST" || !action) {
      res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: { code: 404, message: "not found", status: "NOT_FOUND" } }));
      return;
    }
    if (action === "countTokens") {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ totalTokens: 100 }));
      return;
    }
    const main = (body.tools ?? []).some((t) => (t.functionDeclarations ?? []).some((f) => f.name === "write_file"));
    const seen: GeminiRequest = { path, main, body };
    this.requests.push(seen);
    // The router wants `model_choice`, the next-speaker check `next_speaker`: one answer for both.
    const reply: ModelReply = main ? this.script(seen, this.main.length - 1) : { text: JSON.stringify({ reasoning: "ok", model_choice: "flash", next_speaker: "user", title: "ok" }) };
    if (action === "streamGenerateContent") await this.stream(res, reply);
    else res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(chunk(reply.text ? [{ text: reply.text }, ...calls(reply)] : calls(reply), true)));
  }

  private async stream(res: ServerResponse, reply: ModelReply): Promise<void> {
    this.open.add(res);
    res.on("close", () => this.open.delete(res));
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
    const send = (data: unknown) => {
      if (!res.destroyed) res.write(`data: ${JSON.stringify(data)}\r\n\r\n`);
    };
    const tools = calls(reply);
    if (reply.text) {
      const n = "chunks" in reply && reply.chunks ? reply.chunks : 1;
      const delay = "chunkDelayMs" in reply ? (reply.chunkDelayMs ?? 0) : 0;
      for (let i = 0; i < n; i++) {
        if (res.destroyed) return;
        send(chunk([{ text: n === 1 ? reply.text : `${reply.text} ${i} ` }], i === n - 1 && tools.length === 0));
        if (delay) await new Promise((r) => setTimeout(r, delay));
      }
    }
    if (tools.length > 0) send(chunk(tools, true));
    res.end();
  }
}

function calls(reply: ModelReply): Part[] {
  return "toolUse" in reply ? [{ functionCall: { name: reply.toolUse.name, args: reply.toolUse.input } }] : [];
}

function chunk(parts: Part[], last: boolean): unknown {
  return {
    candidates: [{ content: { role: "model", parts }, index: 0, ...(last ? { finishReason: "STOP" } : {}) }],
    usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 10, totalTokenCount: 20 },
    modelVersion: "gemini-fake",
  };
}

/** Text of a request's contents by role (function calls and their responses included). */
export function geminiTexts(req: GeminiRequest, role?: "user" | "model"): string {
  return (req.body.contents ?? [])
    .filter((c) => role === undefined || c.role === role)
    .flatMap((c) => c.parts ?? [])
    .map((p) => p.text ?? (p.functionResponse ? JSON.stringify(p.functionResponse.response) : ""))
    .join("\n");
}

/** The last content of a request answers a function call (the model's tool ran). */
export function lastIsFunctionResponse(req: GeminiRequest): boolean {
  return (req.body.contents?.at(-1)?.parts ?? []).some((p) => p.functionResponse !== undefined);
}
