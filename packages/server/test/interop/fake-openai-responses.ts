import type { IncomingMessage, ServerResponse } from "node:http";
import { FakeModelApi, type ModelReply, type ModelRequest } from "./fake-model-api.js";

type InputItem = { type?: string; role?: string; content?: unknown; output?: unknown; call_id?: string; name?: string };

/** One request as the fake received it (the conversation the model was shown). */
export type ResponsesRequest = ModelRequest<{
  model?: string;
  input?: InputItem[];
  instructions?: string;
  tools?: { type?: string; name?: string }[];
  stream?: boolean;
}>;

/**
 * A fake OpenAI Responses API on loopback (test-only: there is no model here), as Codex speaks
 * it: `POST /v1/responses` streamed as SSE (`response.created`, `response.output_item.added`,
 * `response.output_text.delta`, `response.output_item.done` for a message or a
 * `function_call`, `response.completed` with usage). Requests that offer tools are the main
 * conversation and go to `script`; anything else (a title, a summary) gets a short text. A tool
 * whose `type` is `custom` (Codex's freeform `apply_patch`) is called with `input.input` as its
 * raw text.
 */
export class FakeOpenAiResponses extends FakeModelApi<ResponsesRequest["body"]> {
  protected async respond(req: IncomingMessage, res: ServerResponse, path: string, body: ResponsesRequest["body"]): Promise<void> {
    if (req.method === "GET" && path.endsWith("/models")) {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ object: "list", data: [{ id: "fake-model", object: "model" }] }));
      return;
    }
    // Codex opens the Responses API as a WebSocket first. This fake speaks HTTP only and says so
    // the way HTTP does (426 Upgrade Required), so Codex falls back to HTTPS at once; any other
    // answer (404) makes it retry with backoff for about 6 s before every first turn.
    if (req.method === "GET" && path.endsWith("/responses") && /websocket/i.test(req.headers.upgrade ?? "")) {
      res
        .writeHead(426, { "content-type": "application/json" })
        .end(JSON.stringify({ error: { message: "websockets are not served here", type: "invalid_request_error" } }));
      return;
    }
    if (req.method !== "POST" || !path.endsWith("/responses")) {
      res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: "not found", type: "invalid_request_error" } }));
      return;
    }
    const main = (body.tools ?? []).length > 0;
    const seen: ResponsesRequest = { path, main, body, ...this.authOf(req) };
    this.requests.push(seen);
    const reply: ModelReply = main ? this.script(seen, this.main.length - 1) : { text: "ok" };
    await this.stream(res, body, reply);
  }

  private async stream(res: ServerResponse, body: ResponsesRequest["body"], reply: ModelReply): Promise<void> {
    this.streaming(res);
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
    const send = (data: { type: string } & Record<string, unknown>) => {
      if (!res.destroyed) res.write(`event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`);
    };
    const id = `resp_${rand()}`;
    const model = body.model ?? "fake-model";
    send({ type: "response.created", response: { id, object: "response", status: "in_progress", model, output: [] } });
    const output: unknown[] = [];
    let index = 0;
    if (reply.text) {
      const itemId = `msg_${rand()}`;
      send({
        type: "response.output_item.added",
        output_index: index,
        item: { type: "message", id: itemId, role: "assistant", status: "in_progress", content: [] },
      });
      const n = "chunks" in reply && reply.chunks ? reply.chunks : 1;
      const delay = "chunkDelayMs" in reply ? (reply.chunkDelayMs ?? 0) : 0;
      let text = "";
      for (let i = 0; i < n; i++) {
        if (res.destroyed) return;
        const delta = n === 1 ? reply.text : `${reply.text} ${i} `;
        text += delta;
        send({ type: "response.output_text.delta", item_id: itemId, output_index: index, content_index: 0, delta });
        if (delay) await new Promise((r) => setTimeout(r, delay));
      }
      const item = { type: "message", id: itemId, role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] };
      send({ type: "response.output_item.done", output_index: index, item });
      output.push(item);
      index++;
    }
    if ("toolUse" in reply) {
      const custom = (body.tools ?? []).some((t) => t.name === reply.toolUse.name && t.type === "custom");
      const callId = `call_${rand()}`;
      const item = custom
        ? {
            type: "custom_tool_call",
            id: `ctc_${rand()}`,
            call_id: callId,
            name: reply.toolUse.name,
            input: String(reply.toolUse.input.input ?? ""),
            status: "completed",
          }
        : {
            type: "function_call",
            id: `fc_${rand()}`,
            call_id: callId,
            name: reply.toolUse.name,
            arguments: JSON.stringify(reply.toolUse.input),
            status: "completed",
          };
      send({ type: "response.output_item.added", output_index: index, item: { ...item, status: "in_progress" } });
      send({ type: "response.output_item.done", output_index: index, item });
      output.push(item);
    }
    send({
      type: "response.completed",
      response: {
        id,
        object: "response",
        status: "completed",
        model,
        output,
        usage: {
          input_tokens: 10,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: 10,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: 20,
        },
      },
    });
    res.end();
  }
}

function rand(): string {
  return Math.random().toString(36).slice(2);
}

/** Text of every user message and tool output of a request. */
export function responsesTexts(req: ResponsesRequest, role: "user" | "tool" = "user"): string {
  return (req.body.input ?? [])
    .filter((i) => (role === "user" ? i.role === "user" : i.type === "function_call_output" || i.type === "custom_tool_call_output"))
    .map((i) => (role === "user" ? textOf(i.content) : textOf(i.output)))
    .join("\n");
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((c: { text?: string }) => c.text ?? "").join("\n");
}

/** The last input item answers a tool call (the model's tool ran). */
export function lastIsToolOutput(req: ResponsesRequest): boolean {
  const last = req.body.input?.at(-1);
  return last?.type === "function_call_output" || last?.type === "custom_tool_call_output";
}
