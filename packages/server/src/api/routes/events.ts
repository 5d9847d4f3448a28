import type { FastifyInstance } from "fastify";
import type { EventBus } from "../../domain/event-bus.js";

/**
 * `GET /api/v1/events` (WebSocket): every event frame, as JSON text. Auth is checked by the
 * same hook as every other route (header or `?token=`). A slow client is dropped rather
 * than buffering without bound.
 */
export function eventRoutes(app: FastifyInstance, bus: EventBus): void {
  app.get("/events", { websocket: true }, (socket) => {
    const off = bus.subscribe((frame) => {
      if (socket.readyState !== socket.OPEN) return;
      if (socket.bufferedAmount > 8 * 1024 * 1024) {
        socket.close(1013, "client too slow");
        return;
      }
      socket.send(JSON.stringify(frame));
    });
    socket.on("close", off);
    socket.on("error", off);
  });
}
