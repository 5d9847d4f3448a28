#!/usr/bin/env node
// Grove's MCP server as an agent starts it (MCP-1): a stdio shim that connects to Grove's Unix
// socket (GROVE_MCP_SOCKET; inside a sandbox the one bound in, the sandbox's only door to Grove),
// says which session it speaks for with its capability token (GROVE_MCP_SESSION,
// GROVE_MCP_TOKEN), then relays the MCP stream both ways. Plain JavaScript with no imports
// beyond Node: it starts in milliseconds, needs no build and runs wherever the agent runs.
import { connect } from "node:net";

const { GROVE_MCP_SOCKET: socketPath, GROVE_MCP_SESSION: sessionId, GROVE_MCP_TOKEN: token } = process.env;
if (!socketPath || !sessionId || !token) {
  process.stderr.write("grove-mcp: GROVE_MCP_SOCKET, GROVE_MCP_SESSION and GROVE_MCP_TOKEN must be set\n");
  process.exit(2);
}
const socket = connect(socketPath);
socket.on("connect", () => {
  socket.write(`${JSON.stringify({ sessionId, token })}\n`);
  process.stdin.pipe(socket);
  socket.pipe(process.stdout);
});
socket.on("error", (e) => {
  process.stderr.write(`grove-mcp: ${e.message}\n`);
  process.exit(1);
});
socket.on("close", () => process.exit(0));
process.stdin.on("end", () => socket.end());
