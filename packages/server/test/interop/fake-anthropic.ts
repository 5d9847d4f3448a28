import type { IncomingMessage, ServerResponse } from "node:http";
import { FakeModelApi, type ModelReply, type ModelRequest } from "./fake-model-api.js";

export type { ModelReply } from "./fake-model-api.js";

/** One request as the fake received it (the conversation the model was shown). */
export type SeenRequest = ModelRequest<{
  model?: string;
  system?: unknown;
  messages?: { role: string; content: unknown }[];
  tools?: { name: string }[];
  stream?: boolean;
}>;

/**
 * A fake Anthropic Messages API on loopback (test-only: there is no model here). Streams SSE
 * like the real one (`message_start`, `content_block_*` with `text_delta`/`input_json_delta`,
 * `message_delta`, `message_stop`) and answers JSON when `stream` is false. Requests that offer
 * the agent's tools are the main conversation and go to `script`; side requests (titles,
 * suggestions, quota checks) get a short text.
 */
export class FakeAnthropic extends FakeModelApi<SeenRequest["body"]> {
  /** USE-1: the token counts each answer reports (default: 10 in, 10 out, no cache), and what was reported, in order. */
  usageFor: (seen: SeenRequest) => FakeUsage = () => ({ input: 10, output: 10 });
  readonly reported: (FakeUsage & { main: boolean })[] = [];

  protected async respond(req: IncomingMessage, res: ServerResponse, path: string, body: SeenRequest["body"]): Promise<void> {
    if (req.method !== "POST" || !path.startsWith("/v1/messages")) {
      res
        .writeHead(404, { "content-type": "application/json" })
        .end(JSON.stringify({ type: "error", error: { type: "not_found_error", message: "not found" } }));
      return;
    }
    if (path.endsWith("/count_tokens")) {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ input_tokens: 100 }));
      return;
    }
    const main = (body.tools ?? []).some((t) => t.name === "Write");
    const seen: SeenRequest = { path, main, body, ...this.authOf(req) };
    this.requests.push(seen);
    const reply: ModelReply = main ? this.script(seen, this.main.length - 1) : { text: "ok" };
    const usage = this.usageFor(seen);
    this.reported.push({ ...usage, main });
    if (body.stream) await this.stream(res, body.model ?? "claude-fake", reply, usage);
    else res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(this.json(body.model ?? "claude-fake", reply, usage)));
  }

  private json(model: string, reply: ModelReply, usage: FakeUsage): unknown {
    const content: unknown[] = [];
    if (reply.text) content.push({ type: "text", text: reply.text });
    if ("toolUse" in reply)
      content.push({ type: "tool_use", id: `toolu_${Math.random().toString(36).slice(2)}`, name: reply.toolUse.name, input: reply.toolUse.input });
    return {
      id: `msg_${Math.random().toString(36).slice(2)}`,
      type: "message",
      role: "assistant",
      model,
      content,
      stop_reason: "toolUse" in reply ? "tool_use" : "end_turn",
      stop_sequence: null,
      usage: { input_tokens: usage.input, output_tokens: usage.output, ...cacheFields(usage) },
    };
  }

  private async stream(res: ServerResponse, model: string, reply: ModelReply, usage: FakeUsage): Promise<void> {
    this.streaming(res);
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
    const send = (event: string, data: unknown) => {
      if (!res.destroyed) res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    };
    const id = `msg_${Math.random().toString(36).slice(2)}`;
    send("message_start", {
      type: "message_start",
      message: {
        id,
        type: "message",
        role: "assistant",
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: usage.input, output_tokens: 1, ...cacheFields(usage) },
      },
    });
    let index = 0;
    if (reply.text) {
      send("content_block_start", { type: "content_block_start", index, content_block: { type: "text", text: "" } });
      const n = "chunks" in reply && reply.chunks ? reply.chunks : 1;
      const delay = "chunkDelayMs" in reply ? (reply.chunkDelayMs ?? 0) : 0;
      for (let i = 0; i < n; i++) {
        if (res.destroyed) return;
        send("content_block_delta", { type: "content_block_delta", index, delta: { type: "text_delta", text: n === 1 ? reply.text : `${reply.text} ${i} ` } });
        if (delay) await new Promise((r) => setTimeout(r, delay));
      }
      send("content_block_stop", { type: "content_block_stop", index });
      index++;
    }
    if ("toolUse" in reply) {
      const toolId = `toolu_${Math.random().toString(36).slice(2)}`;
      send("content_block_start", { type: "content_block_start", index, content_block: { type: "tool_use", id: toolId, name: reply.toolUse.name, input: {} } });
      const json = JSON.stringify(reply.toolUse.input);
      const half = Math.floor(json.length / 2);
      send("content_block_delta", { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: json.slice(0, half) } });
      send("content_block_delta", { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: json.slice(half) } });
      send("content_block_stop", { type: "content_block_stop", index });
    }
    send("message_delta", {
      type: "message_delta",
      delta: { stop_reason: "toolUse" in reply ? "tool_use" : "end_turn", stop_sequence: null },
      usage: { output_tokens: usage.output },
    });
    send("message_stop", { type: "message_stop" });
    res.end();
  }
}

/** Text of a message's content (string or blocks), tool results included. */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((b: { type?: string; text?: string; content?: unknown }) =>
      b.type === "text" ? (b.text ?? "") : b.type === "tool_result" ? contentText(b.content) : "",
    )
    .join("\n");
}

/** The last message of a request is a tool result (the model's tool ran). */
export function lastIsToolResult(req: SeenRequest): boolean {
  const last = req.body.messages?.at(-1);
  return Array.isArray(last?.content) && last.content.some((b: { type?: string }) => b.type === "tool_result");
}

/** USE-1: the tokens one answer of the fake reports. */
export interface FakeUsage {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
}

function cacheFields(u: FakeUsage): Record<string, number> {
  return {
    ...(u.cacheRead !== undefined ? { cache_read_input_tokens: u.cacheRead } : {}),
    ...(u.cacheWrite !== undefined ? { cache_creation_input_tokens: u.cacheWrite } : {}),
  };
}
