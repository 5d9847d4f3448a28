/**
 * The header: navigation, live/reconnecting state, the attention inbox, the theme toggle and
 * About (the server's identity, WEB-23). `#status` speaks only when the server cannot be read.
 */
import { useQuery } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { humanError } from "./api/human-errors.js";
import { keys } from "./api/keys.js";
import { getHealth } from "./api/resources.js";
import { About, ThemeToggle } from "./HeaderMenu.js";
import { Inbox } from "./Inbox.js";
import { events } from "./live/events.js";
import { Link, useLocation } from "./router.js";

type Live = "connecting…" | "live" | "reconnecting…";

function useLive(): Live {
  const [live, setLive] = useState<Live>(events.live ? "live" : "connecting…");
  useEffect(() => {
    const offs = [
      events.on("connected", () => setLive("live")),
      events.on("reconnected", () => setLive("live")),
      events.on("disconnected", () => setLive("reconnecting…")),
    ];
    // The socket may have opened between the first render and this subscription.
    if (events.live) setLive("live");
    return () => offs.forEach((o) => o());
  }, []);
  return live;
}

export function Header() {
  const health = useQuery({ queryKey: keys.health, queryFn: getHealth });
  const live = useLive();
  const { pathname } = useLocation();
  const current = (p: string) => ((p === "/" ? pathname === "/" || pathname.startsWith("/tasks/") : pathname.startsWith(p)) ? "page" : undefined);
  // Should the pages ever need a sideways scroll (a narrow screen, more pages), the current one is kept in sight.
  useEffect(() => {
    const link = document.querySelector<HTMLElement>('.top nav a[aria-current="page"]');
    const nav = link?.parentElement;
    if (link && nav && nav.scrollWidth > nav.clientWidth) nav.scrollLeft = link.offsetLeft + link.offsetWidth - nav.clientWidth;
  }, [pathname]);
  return (
    <header className="top">
      <Link className="brand" href="/">
        Grove
      </Link>
      <nav aria-label="Main">
        <Link href="/" aria-current={current("/")}>
          Board
        </Link>
        <Link href="/archived" aria-current={current("/archived")}>
          Archived
        </Link>
        <Link href="/repositories" aria-current={current("/repositories")}>
          Repositories
        </Link>
        <Link href="/workflows" aria-current={current("/workflows")}>
          Workflows
        </Link>
        <Link href="/trash" aria-current={current("/trash")}>
          Trash
        </Link>
        <Link href="/usage" aria-current={current("/usage")}>
          Usage
        </Link>
        <Link href="/settings" aria-current={current("/settings")}>
          Settings
        </Link>
      </nav>
      <p id="status" role="status" className={health.error ? "error" : ""} data-error-code={health.error ? humanError(health.error).code : undefined}>
        {health.error ? `Server unavailable: ${humanError(health.error).text}` : ""}
      </p>
      <span id="live" className={`live ${live === "live" ? "on" : "off"}`} aria-live="polite">
        {live}
      </span>
      <Inbox />
      <ThemeToggle />
      <About health={health.data} />
    </header>
  );
}
