/**
 * History-API routing: the server answers every non-API path with index.html, so a reload
 * or a shared link lands on the same view. `navigate` pushes a path; `Link` navigates in
 * place for plain clicks and keeps the browser's behaviour for modified ones.
 */
import { useSyncExternalStore, type AnchorHTMLAttributes, type MouseEvent } from "react";

const listeners = new Set<() => void>();
const notify = () => listeners.forEach((l) => l());

/** Goes to `path` (pathname plus search) without a reload. */
export function navigate(path: string, replace = false): void {
  if (path !== location.pathname + location.search) {
    if (replace) history.replaceState(null, "", path);
    else history.pushState(null, "", path);
  }
  notify();
}

/**
 * The back/forward listener is added with the first subscriber rather than when the module loads,
 * so components that only render links also render where there is no window (the page's unit tests).
 */
const subscribe = (l: () => void) => {
  if (listeners.size === 0) window.addEventListener("popstate", notify);
  listeners.add(l);
  return () => {
    listeners.delete(l);
    if (listeners.size === 0) window.removeEventListener("popstate", notify);
  };
};

/** The current pathname and search, re-rendering on navigation. */
export function useLocation(): { pathname: string; search: URLSearchParams } {
  const href = useSyncExternalStore(subscribe, () => location.pathname + location.search);
  const url = new URL(href, location.origin);
  return { pathname: url.pathname, search: url.searchParams };
}

/** `pattern` like `/tasks/:id/review` → params, or null. */
export function match(pattern: string, pathname: string): Record<string, string> | null {
  const keys: string[] = [];
  const re = new RegExp(`^${pattern.replace(/:([a-zA-Z]+)/g, (_m, k: string) => (keys.push(k), "([^/]+)"))}/?$`);
  const m = re.exec(pathname);
  if (!m) return null;
  return Object.fromEntries(keys.map((k, i) => [k, decodeURIComponent(m[i + 1] ?? "")]));
}

export function Link({ href, onClick, ...rest }: AnchorHTMLAttributes<HTMLAnchorElement> & { href: string }) {
  const click = (e: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(e);
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(href);
  };
  return <a href={href} onClick={click} {...rest} />;
}
