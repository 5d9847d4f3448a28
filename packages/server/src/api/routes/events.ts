import type { EventBus } from "../../domain/event-bus.js";
import type { Handlers } from "../operation-routes.js";
import { DEFAULT_WS_LIMITS, sendBounded, type WsLimits } from "../ws-limits.js";

/**
 * `GET /api/v1/events` (WebSocket): every event frame, as JSON text. Auth is checked by the
 * same hook as every other route (header, page cookie or `?token=`). A client that leaves more
 * than its byte limit unread is dropped rather than buffered without bound (SEC-8).
 */
export function eventHandlers(bus: EventBus, limits: WsLimits = DEFAULT_WS_LIMITS): Pick<Handlers, "subscribeEvents"> {
  // Serialized once per frame, however many clients receive it.
  const texts = new WeakMap<object, string>();
  const text = (frame: object): string => {
    let t = texts.get(frame);
    if (t === undefined) texts.set(frame, (t = JSON.stringify(frame)));
    return t;
  };
  return {
    subscribeEvents: {
      connect: (socket) => {
        const off = bus.subscribe((frame) => {
          if (!sendBounded(socket, text(frame), limits)) off();
        });
        socket.on("close", off);
        socket.on("error", off);
      },
    },
  };
}
