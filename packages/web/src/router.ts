/**
 * History-API routing: `/` (board), `/repositories`, `/tasks/:id`. The server answers every
 * non-API path with index.html, so a reload or a shared link lands on the same view.
 */
import type { EventStream } from "./events.js";

export interface Ctx {
  events: EventStream;
  navigate(path: string): void;
}

/** A view renders into `root` and returns its cleanup (unsubscribe, timers). */
export type View = (root: HTMLElement, ctx: Ctx, params: Record<string, string>) => () => void;

interface Route {
  pattern: RegExp;
  keys: string[];
  view: View;
}

export class Router {
  private readonly routes: Route[] = [];
  private cleanup: (() => void) | undefined;

  constructor(
    private readonly root: HTMLElement,
    private readonly events: EventStream,
    private readonly notFound: View,
  ) {
    window.addEventListener("popstate", () => this.resolve());
    // Same-origin links navigate in place; modifier clicks keep the browser's behaviour.
    document.addEventListener("click", (e) => {
      const a = (e.target as Element | null)?.closest?.("a");
      if (!a || a.target || a.origin !== location.origin || e.defaultPrevented) return;
      if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
      if (a.pathname.startsWith("/api/")) return;
      e.preventDefault();
      this.navigate(a.pathname + a.search);
    });
  }

  add(path: string, view: View): this {
    const keys: string[] = [];
    const pattern = new RegExp(`^${path.replace(/:([a-zA-Z]+)/g, (_m, k: string) => (keys.push(k), "([^/]+)"))}/?$`);
    this.routes.push({ pattern, keys, view });
    return this;
  }

  navigate(path: string): void {
    if (path !== location.pathname + location.search) history.pushState(null, "", path);
    this.resolve();
  }

  resolve(): void {
    this.cleanup?.();
    this.root.replaceChildren();
    const ctx: Ctx = { events: this.events, navigate: (p) => this.navigate(p) };
    for (const r of this.routes) {
      const m = r.pattern.exec(location.pathname);
      if (!m) continue;
      const params = Object.fromEntries(r.keys.map((k, i) => [k, decodeURIComponent(m[i + 1] ?? "")]));
      this.cleanup = r.view(this.root, ctx, params);
      this.markNav();
      return;
    }
    this.cleanup = this.notFound(this.root, ctx, {});
    this.markNav();
  }

  private markNav(): void {
    for (const a of document.querySelectorAll<HTMLAnchorElement>("nav a")) {
      const active = a.pathname === "/" ? location.pathname === "/" || location.pathname.startsWith("/tasks/") : location.pathname.startsWith(a.pathname);
      if (active) a.setAttribute("aria-current", "page");
      else a.removeAttribute("aria-current");
    }
  }
}
