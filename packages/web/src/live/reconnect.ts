/**
 * WEB-19: after the event stream reconnects (a server restart, a network blip), frames sent
 * meanwhile are lost and every read made while the server was down failed. Every cached read is
 * re-read: the ones on screen at once (their errors clear as soon as the answer comes), the
 * others when next shown.
 */
import type { QueryClient } from "@tanstack/react-query";
import type { EventStream } from "./events.js";

export function refreshOnReconnect(qc: QueryClient, stream: EventStream): () => void {
  return stream.on("reconnected", () => void qc.invalidateQueries());
}
