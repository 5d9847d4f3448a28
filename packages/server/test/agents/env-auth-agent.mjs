// A minimal ACP agent for AG-3 (test-only), shaped like codex-acp 0.16: it advertises an
// `env_var` auth method (`probe-key`, variable PROBE_KEY) and answers session/new with ACP's
// authRequired (-32000) unless the client sent `authenticate` with that method first — a key in
// its environment alone does not sign it in. `initialize` reports PROBE_SEEN (what it inherited)
// as its version, so a test sees which environment the agent got. With STDERR_AND_EXIT set it
// writes that text to stderr and exits 3 before answering anything.
import { createInterface } from "node:readline";

if (process.env.STDERR_AND_EXIT) {
  process.stderr.write(`${process.env.STDERR_AND_EXIT}\n`);
  process.exit(3);
}
const send = (m) => process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", ...m })}\n`);
let authenticated = false;

createInterface({ input: process.stdin }).on("line", (line) => {
  const m = JSON.parse(line);
  if (m.method === "initialize") {
    send({
      id: m.id,
      result: {
        protocolVersion: 1,
        agentInfo: { name: "env-auth-agent", version: process.env.PROBE_SEEN ?? "none" },
        agentCapabilities: { loadSession: false },
        authMethods: [
          { id: "browser", name: "Log in with a browser" },
          { type: "env_var", id: "other-key", name: "Use OTHER_KEY", vars: [{ name: "OTHER_KEY" }] },
          { type: "env_var", id: "probe-key", name: "Use PROBE_KEY", vars: [{ name: "PROBE_KEY" }] },
        ],
      },
    });
  } else if (m.method === "authenticate") {
    if (m.params.methodId === "probe-key" && process.env.PROBE_KEY) {
      authenticated = true;
      send({ id: m.id, result: {} });
    } else send({ id: m.id, error: { code: -32603, message: `${m.params.methodId}: its variable is not set` } });
  } else if (m.method === "session/new") {
    if (authenticated) send({ id: m.id, result: { sessionId: "env-auth-session" } });
    else send({ id: m.id, error: { code: -32000, message: "Authentication required" } });
  } else if (m.method === "session/prompt") {
    send({ id: m.id, result: { stopReason: "end_turn" } });
  } else if (m.id !== undefined && m.method) {
    send({ id: m.id, error: { code: -32601, message: `no method ${m.method}` } });
  }
});
