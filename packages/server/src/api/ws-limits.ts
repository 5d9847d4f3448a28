import type { FastifyInstance } from "fastify";
import type { WebSocket } from "ws";
import { AppError } from "../domain/errors.js";

/** Resource bounds of the WebSocket endpoints (SEC-8). */
export interface WsLimits {
  /** Concurrent WebSocket connections (`GROVE_MAX_WS_CLIENTS`, default 64). */
  maxClients: number;
  /** Bytes a client may leave unread before it is dropped (`GROVE_WS_MAX_BUFFERED_BYTES`, default 1 MiB). */
  maxBufferedBytes: number;
}

export const DEFAULT_WS_LIMITS: WsLimits = { maxClients: 64, maxBufferedBytes: 1024 * 1024 };

/**
 * Counts every WebSocket upgrade at the root of the app (events, and any socket route added
 * later), from the upgrade request until its TCP connection closes, and refuses one more than
 * `maxClients` with `503 too_many_clients` before the handshake. Counting the request rather
 * than the opened socket also bounds handshakes in flight.
 */
export function installWsLimit(app: FastifyInstance, limits: WsLimits): void {
  let open = 0;
  app.addHook("onRequest", async (req) => {
    if ((req.headers.upgrade ?? "").toLowerCase() !== "websocket") return;
    if (open >= limits.maxClients)
      throw new AppError("too_many_clients", `at most ${limits.maxClients} WebSocket clients may be connected (GROVE_MAX_WS_CLIENTS)`);
    open++;
    req.raw.socket.once("close", () => open--);
  });
}

/**
 * Sends one text frame unless the client already leaves more than `maxBufferedBytes` unread;
 * such a client is terminated at once (a close handshake would wait behind the backlog it never
 * reads), so a stalled reader costs the server at most its limit plus one frame.
 */
export function sendBounded(socket: WebSocket, text: string, limits: WsLimits): boolean {
  if (socket.readyState !== socket.OPEN) return false;
  if (socket.bufferedAmount > limits.maxBufferedBytes) {
    socket.terminate();
    return false;
  }
  socket.send(text);
  return true;
}
