// An ACP agent for the memory benchmark: answers initialize and session/new, and streams each
// prompt's answer as GROVE_BENCH_CHUNKS (default 10,000) agent_message_chunk updates before
// ending the turn — a long session's stream (bench/scale.ts). Plain JavaScript, no SDK.
import { randomUUID } from "node:crypto";
import { createInterface } from "node:readline";

const CHUNKS = Number(process.env.GROVE_BENCH_CHUNKS ?? 10_000);
const send = (msg) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...msg }) + "\n");
const drain = () => new Promise((r) => (process.stdout.writableNeedDrain ? process.stdout.once("drain", r) : setImmediate(r)));

async function stream(id, sessionId) {
  for (let i = 0; i < CHUNKS; i++) {
    send({ method: "session/update", params: { sessionId, update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: `token-${i} ` } } } });
    if (i % 100 === 99) await drain();
  }
  send({ id, result: { stopReason: "end_turn" } });
}

createInterface({ input: process.stdin }).on("line", (line) => {
  let m;
  try {
    m = JSON.parse(line);
  } catch {
    return;
  }
  if (m.id === undefined || m.method === undefined) return;
  if (m.method === "initialize") send({ id: m.id, result: { protocolVersion: 1, agentCapabilities: {}, authMethods: [] } });
  else if (m.method === "session/new") send({ id: m.id, result: { sessionId: randomUUID() } });
  else if (m.method === "session/prompt") void stream(m.id, m.params.sessionId);
  else send({ id: m.id, error: { code: -32601, message: "method not found" } });
});
process.stdin.on("end", () => process.exit(0));
