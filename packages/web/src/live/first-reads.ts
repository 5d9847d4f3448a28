/**
 * WEB-19: the page's first reads and the event stream. Frames are not replayed: one sent after a
 * read's answer was made but before the socket opened is lost, and what the read showed (a card
 * still "Running" while its agent asks for permission) would stay wrong until the next frame. So
 * until the stream first opens, reads (GETs) wait for it — a WebSocket handshake, which starts
 * with the page. A stream that does not open within `waitMs` (a server that is down, a proxy that
 * holds the upgrade) or whose socket is refused does not hold the page: reads go, and everything
 * read before the stream opens is read again when it does. Reconnects are `feedCache`'s (every
 * cached read is re-read).
 */
import type { QueryClient } from "@tanstack/react-query";
import { holdReads } from "../api/client.js";
import type { EventStream } from "./events.js";

/** Installs the hold; returns a function that releases it and stops listening. */
export function firstReadsAfterOpen(qc: QueryClient, stream: EventStream, waitMs = 2_000): () => void {
  let release!: () => void;
  holdReads(new Promise<void>((r) => (release = r)));
  let readsWent = false;
  const letReadsGo = () => ((readsWent = true), release());
  const timer = setTimeout(letReadsGo, waitMs);
  // A socket closed before it ever opened (the server down, a sign-in refused) will not open soon.
  const offRefused = stream.on("disconnected", () => (clearTimeout(timer), letReadsGo()));
  const off = stream.on("connected", () => {
    clearTimeout(timer);
    release();
    off();
    offRefused();
    if (readsWent) void qc.invalidateQueries();
  });
  return () => (clearTimeout(timer), off(), offRefused(), release());
}
