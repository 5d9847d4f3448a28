// A minimal ACP agent for benchmarks: answers initialize and session/new over ndjson JSON-RPC and
// nothing else. Plain JavaScript (no tsx, no SDK) so that its start costs ~30 ms, isolating the
// worktree engine's share of a launch from the scripted agent's start-up (bench/parallel-launch.ts).
import { randomUUID } from "node:crypto";
import { createInterface } from "node:readline";

const send = (msg) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...msg }) + "\n");
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
  else if (m.method === "session/prompt") send({ id: m.id, result: { stopReason: "end_turn" } });
  else send({ id: m.id, error: { code: -32601, message: "method not found" } });
});
process.stdin.on("end", () => process.exit(0));
