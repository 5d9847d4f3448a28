/**
 * The Grove web page (UX-2): React 19, one data cache (React Query) fed by the event socket,
 * history routing. Heavy parts (review diffs with highlighting, the terminal) load on demand.
 */
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { adoptTokenFromUrl } from "./api/client.js";
import { App } from "./App.js";
import { prefetchBoard } from "./board/column-query.js";
import { feedAttention } from "./live/attention.js";
import { feedCache } from "./live/cache.js";
import { events } from "./live/events.js";
import { firstReadsAfterOpen } from "./live/first-reads.js";
import "./styles.css";
import { applyTheme, storedTheme } from "./ui/theme.js";

adoptTokenFromUrl();
// WEB-26: a remembered theme is set before the first paint (no flash of the other one).
applyTheme(storedTheme());

const queryClient = new QueryClient({
  defaultOptions: {
    // The event stream keeps cached reads fresh; no polling, no refetch on focus.
    queries: { staleTime: Infinity, refetchOnWindowFocus: false, retry: false, gcTime: 5 * 60_000 },
  },
});
feedCache(queryClient, events);
feedAttention(events);
// WEB-19: the first reads wait for the stream's first open (at most 2 s), so no frame is lost between them.
firstReadsAfterOpen(queryClient, events);
events.connect();
// The board's first pages are asked for before React renders (the first screen waits on them).
prefetchBoard(queryClient);

// WEB-27: the service worker (public/sw.js) keeps the app shell and the offline page. It is
// registered once the page has loaded, so it never competes with the first screen's requests.
if ("serviceWorker" in navigator) {
  addEventListener("load", () => void navigator.serviceWorker.register("/sw.js").catch(() => undefined));
}

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <App />
    </QueryClientProvider>
  </StrictMode>,
);
