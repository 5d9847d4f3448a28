import type { IncomingMessage, ServerResponse } from "node:http";
import { FakeModelApi, type ModelReply, type ModelRequest } from "./fake-model-api.js";

type Part = { text?: string; functionCall?: { name: string; args?: unknown }; functionResponse?: { name: string; response?: unknown } };

/** One request as the fake received it (the conversation the model was shown). */
export type GeminiRequest = ModelRequest<{
  contents?: { role: string; parts?: Part[] }[];
  tools?: { functionDeclarations?: { name: string }[] }[];
  generationConfig?: { responseMimeType?: string; responseJsonSchema?: unknown; responseSchema?: unknown };
}>;

/**
 * A fake Gemini API on loopback (test-only: there is no model here): `models/<m>:generateContent`
 * answers JSON, `models/<m>:streamGenerateContent?alt=sse` streams `data:` chunks like the real
 * one, `:countTokens` counts. Requests that offer the agent's `write_file` tool are the main
 * conversation and go to `script`; side requests (the model router, the next-speaker check,
 * titles) get a JSON text that satisfies each of them.
 */
export class FakeGemini extends FakeModelApi<GeminiRequest["body"]> {
  /** USE-1: the token counts each answer reports in `usageMetadata` (default 10 in, 10 out), and what was reported, in order. */
  usageFor: (seen: GeminiRequest) => { input: number; output: number } = () => ({ input: 10, output: 10 });
  readonly reported: { input: number; output: number; main: boolean }[] = [];

  protected async respond(req: IncomingMessage, res: ServerResponse, path: string, body: GeminiRequest["body"]): Promise<void> {
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
    const seen: GeminiRequest = { path, main, body, ...this.authOf(req) };
    this.requests.push(seen);
    // The router wants `model_choice`, the next-speaker check `next_speaker`: one answer for both.
    const reply: ModelReply = main
      ? this.script(seen, this.main.length - 1)
      : { text: JSON.stringify({ reasoning: "ok", model_choice: "flash", next_speaker: "user", title: "ok" }) };
    const usage = this.usageFor(seen);
    this.reported.push({ ...usage, main });
    if (action === "streamGenerateContent") await this.stream(res, reply, usage);
    else
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify(chunk(reply.text ? [{ text: reply.text }, ...calls(reply)] : calls(reply), true, usage)));
  }

  private async stream(res: ServerResponse, reply: ModelReply, usage: { input: number; output: number }): Promise<void> {
    this.streaming(res);
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
        send(chunk([{ text: n === 1 ? reply.text : `${reply.text} ${i} ` }], i === n - 1 && tools.length === 0, usage));
        if (delay) await new Promise((r) => setTimeout(r, delay));
      }
    }
    if (tools.length > 0) send(chunk(tools, true, usage));
    res.end();
  }
}

function calls(reply: ModelReply): Part[] {
  return "toolUse" in reply ? [{ functionCall: { name: reply.toolUse.name, args: reply.toolUse.input } }] : [];
}

function chunk(parts: Part[], last: boolean, usage: { input: number; output: number }): unknown {
  return {
    candidates: [{ content: { role: "model", parts }, index: 0, ...(last ? { finishReason: "STOP" } : {}) }],
    usageMetadata: { promptTokenCount: usage.input, candidatesTokenCount: usage.output, totalTokenCount: usage.input + usage.output },
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
