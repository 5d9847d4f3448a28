import type { IncomingMessage, ServerResponse } from "node:http";
import { FakeModelApi, type ModelReply, type ModelRequest } from "./fake-model-api.js";

type ChatMessage = { role: string; content?: unknown; tool_calls?: unknown[]; tool_call_id?: string };

/** One request as the fake received it (the conversation the model was shown). */
export type ChatRequest = ModelRequest<{
  model?: string;
  messages?: ChatMessage[];
  tools?: { type?: string; function?: { name: string } }[];
  stream?: boolean;
}>;

/**
 * A fake OpenAI-compatible chat-completions API on loopback (test-only: there is no model
 * here), as opencode's `@ai-sdk/openai-compatible` provider speaks it: `POST /v1/chat/completions`
 * streamed as SSE `chat.completion.chunk`s (text deltas, then `tool_calls` deltas, a
 * `finish_reason`, a usage chunk and `data: [DONE]`), or JSON when `stream` is false; `GET
 * /v1/models` lists one model. Requests that offer tools are the main conversation and go to
 * `script`; the rest (opencode's title request) get a short text.
 */
export class FakeOpenAiChat extends FakeModelApi<ChatRequest["body"]> {
  protected async respond(req: IncomingMessage, res: ServerResponse, path: string, body: ChatRequest["body"]): Promise<void> {
    if (req.method === "GET" && path.endsWith("/models")) {
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ object: "list", data: [{ id: "fake-model", object: "model", owned_by: "grove" }] }));
      return;
    }
    if (req.method !== "POST" || !path.endsWith("/chat/completions")) {
      res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: "not found", type: "invalid_request_error" } }));
      return;
    }
    const main = (body.tools ?? []).length > 0;
    const seen: ChatRequest = { path, main, body, ...this.authOf(req) };
    this.requests.push(seen);
    const reply: ModelReply = main ? this.script(seen, this.main.length - 1) : { text: "Greeting" };
    if (body.stream) await this.stream(res, body.model ?? "fake-model", reply);
    else res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(this.json(body.model ?? "fake-model", reply)));
  }

  private json(model: string, reply: ModelReply): unknown {
    const toolCalls =
      "toolUse" in reply
        ? [{ id: `call_${rand()}`, type: "function", function: { name: reply.toolUse.name, arguments: JSON.stringify(reply.toolUse.input) } }]
        : undefined;
    return {
      id: `chatcmpl-${rand()}`,
      object: "chat.completion",
      created: Math.floor(Date.now() / 1000),
      model,
      choices: [
        {
          index: 0,
          message: { role: "assistant", content: reply.text ?? null, ...(toolCalls ? { tool_calls: toolCalls } : {}) },
          finish_reason: toolCalls ? "tool_calls" : "stop",
        },
      ],
      usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
    };
  }

  private async stream(res: ServerResponse, model: string, reply: ModelReply): Promise<void> {
    this.streaming(res);
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
    const id = `chatcmpl-${rand()}`;
    const created = Math.floor(Date.now() / 1000);
    const send = (choice: Record<string, unknown> | null, extra: Record<string, unknown> = {}) => {
      if (!res.destroyed)
        res.write(
          `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices: choice ? [{ index: 0, ...choice }] : [], ...extra })}\n\n`,
        );
    };
    send({ delta: { role: "assistant", content: "" }, finish_reason: null });
    if (reply.text) {
      const n = "chunks" in reply && reply.chunks ? reply.chunks : 1;
      const delay = "chunkDelayMs" in reply ? (reply.chunkDelayMs ?? 0) : 0;
      for (let i = 0; i < n; i++) {
        if (res.destroyed) return;
        send({ delta: { content: n === 1 ? reply.text : `${reply.text} ${i} ` }, finish_reason: null });
        if (delay) await new Promise((r) => setTimeout(r, delay));
      }
    }
    if ("toolUse" in reply) {
      const args = JSON.stringify(reply.toolUse.input);
      const half = Math.floor(args.length / 2);
      send({
        delta: { tool_calls: [{ index: 0, id: `call_${rand()}`, type: "function", function: { name: reply.toolUse.name, arguments: args.slice(0, half) } }] },
        finish_reason: null,
      });
      send({ delta: { tool_calls: [{ index: 0, function: { arguments: args.slice(half) } }] }, finish_reason: null });
    }
    send({ delta: {}, finish_reason: "toolUse" in reply ? "tool_calls" : "stop" });
    send(null, { usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 } });
    if (!res.destroyed) res.write("data: [DONE]\n\n");
    res.end();
  }
}

function rand(): string {
  return Math.random().toString(36).slice(2);
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((c: { text?: string }) => c.text ?? "").join("\n");
}

/** Text of a request's messages of one role. */
export function chatTexts(req: ChatRequest, role: "user" | "tool" = "user"): string {
  return (req.body.messages ?? [])
    .filter((m) => m.role === role)
    .map((m) => textOf(m.content))
    .join("\n");
}

/** The last message answers a tool call (the model's tool ran). */
export function lastIsToolMessage(req: ChatRequest): boolean {
  return req.body.messages?.at(-1)?.role === "tool";
}
