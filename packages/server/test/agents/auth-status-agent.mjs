// A minimal ACP agent for AG-3.4 (test-only): advertises the `authStatus` extension like
// Claude's bridge and pushes `_auth/status_update` with AUTH_KIND (default "none")
// AUTH_PUSH_MS after `initialize` arrived (never when AUTH_PUSH_MS is "never"), the way the
// bridge's asynchronous CLI probe does. session/new answers at once; a prompt without
// credentials is refused with ACP's authRequired (-32000).
import { createInterface } from "node:readline";

const kind = process.env.AUTH_KIND ?? "none";
const pushMs = process.env.AUTH_PUSH_MS ?? "never";
const send = (m) => process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", ...m })}\n`);

createInterface({ input: process.stdin }).on("line", (line) => {
  const m = JSON.parse(line);
  if (m.method === "initialize") {
    send({
      id: m.id,
      result: {
        protocolVersion: 1,
        agentCapabilities: { loadSession: false, _meta: { authStatus: {} } },
        authMethods: [{ id: "login", name: "Log in", description: "log in once" }],
      },
    });
    if (pushMs !== "never") setTimeout(() => send({ method: "_auth/status_update", params: { authStatus: { kind, label: kind } } }), Number(pushMs));
  } else if (m.method === "session/new") {
    send({ id: m.id, result: { sessionId: "auth-status-session" } });
  } else if (m.method === "session/prompt") {
    if (kind === "none") send({ id: m.id, error: { code: -32000, message: "Authentication required" } });
    else send({ id: m.id, result: { stopReason: "end_turn" } });
  } else if (m.id !== undefined && m.method) {
    send({ id: m.id, error: { code: -32601, message: `no method ${m.method}` } });
  }
});
