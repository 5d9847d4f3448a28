import WebSocket from "ws";
import { forwardHeaders, forwardPath, type ForwardTarget } from "./forward-http.js";

/**
 * A WebSocket route (the terminal) of a task on another runner: opens the same path
 * on that runner, signed (SBX-5), and pipes frames both ways; either side
 * closing closes the other.
 */
export function pipeWebSocket(client: WebSocket, target: ForwardTarget, reqUrl: string, from: string, secret: string, person: boolean): void {
  const path = forwardPath(reqUrl);
  const url = new URL(target.url.replace(/\/+$/, "") + path);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  const upstream = new WebSocket(url, {
    headers: forwardHeaders(target.runnerId, { method: "GET", path, body: undefined, from, secret, accept: undefined, person }, false),
  });
  const pending: (Buffer | string)[] = [];
  client.on("message", (data: Buffer, isBinary: boolean) => {
    const frame = isBinary ? data : data.toString("utf8");
    if (upstream.readyState === WebSocket.OPEN) upstream.send(frame);
    else pending.push(frame);
  });
  upstream.on("open", () => {
    for (const f of pending.splice(0)) upstream.send(f);
  });
  upstream.on("message", (data: Buffer, isBinary: boolean) => {
    if (client.readyState === WebSocket.OPEN) client.send(isBinary ? data : data.toString("utf8"));
  });
  const closeCode = (c: number): number => (c >= 1000 && c < 5000 && c !== 1005 && c !== 1006 ? c : 1011);
  upstream.on("close", (code, reason) => client.close(closeCode(code), reason.toString("utf8").slice(0, 120)));
  upstream.on("error", () => client.close(1011, `runner ${target.runnerId} did not answer`));
  upstream.on("unexpected-response", (_req, res) => {
    client.close(1011, `runner ${target.runnerId} refused the terminal (${res.statusCode ?? "?"})`);
    upstream.terminate();
  });
  client.on("close", () => upstream.close());
}
