/**
 * WEB-18: views that load on demand, without ever stranding the person on the browser's own
 * error page. Each view's chunk is preloaded once the page is idle (so a click while the server
 * is down finds it already here), and a view that still cannot load shows an in-app message
 * inside the page frame, which loads it again once the server answers.
 *
 * The one recovery for a view's code that did not load is a reload, and only once the server
 * answers: then the failure was stale code (a page older than the server's rebuilt one) or a
 * past outage; while the server is down a reload would be the browser's error page. A failed
 * preload changes nothing (Vite's `vite:preloadError` is left to throw): the view's own load,
 * when the person opens it, decides.
 */
import { Component, lazy, Suspense, type ComponentType, type ReactNode } from "react";
import { events } from "../live/events.js";

type Loader<P> = () => Promise<{ default: ComponentType<P> }>;

/** A lazily loaded view: the component React renders and the preload of its chunk. */
export interface LazyView<P> {
  Component: ComponentType<P>;
  preload(): Promise<unknown>;
}

const all: LazyView<never>[] = [];
/** Set once {@link preloadViews} ran: a view declared later (inside a loaded view) preloads at once. */
let preloading = false;

/** Declares a view that loads on demand; {@link preloadViews} fetches every declared one. */
export function lazyView<P>(load: Loader<P>): LazyView<P> {
  let loading: Promise<{ default: ComponentType<P> }> | undefined;
  // One request for the preload and the render; a failed preload is not kept, so the render tries again.
  const once = () =>
    (loading ??= load().catch((e: unknown) => {
      loading = undefined;
      throw e;
    }));
  const view: LazyView<P> = { Component: lazy(once) as unknown as ComponentType<P>, preload: () => once().catch(() => undefined) };
  all.push(view as unknown as LazyView<never>);
  if (preloading) void view.preload();
  return view;
}

/** Fetches every declared view's chunk when the browser is idle (after the first screen). */
export function preloadViews(): void {
  const run = () => {
    preloading = true;
    all.forEach((v) => void v.preload());
  };
  if ("requestIdleCallback" in window) window.requestIdleCallback(run, { timeout: 2_000 });
  else setTimeout(run, 500);
}

/**
 * A module that failed to load stays failed in the browser's module map and in React's lazy
 * component, so loading it again means loading the page again; that is safe only once the server
 * answers (a reload while it is down would be the browser's error page).
 */
async function reloadWhenServerAnswers(): Promise<boolean> {
  try {
    sessionStorage.setItem(RELOADED_AT, String(Date.now()));
    const res = await fetch("/api/v1/health", { credentials: "same-origin" });
    if (!res.ok) return false;
  } catch {
    return false;
  }
  location.reload();
  return true;
}

/** When this tab last reloaded to recover a view: at most one automatic reload a minute, so missing code never loops. */
const RELOADED_AT = "grove.reloadedAt";
const reloadedRecently = () => Date.now() - Number(sessionStorage.getItem(RELOADED_AT) ?? 0) < 60_000;

interface BoundaryState {
  failed: boolean;
  checking: boolean;
}

/** Shows `what` (e.g. "task view") loading, or, when its code cannot load, says so in the page. */
export class ViewBoundary extends Component<{ what: string; children: ReactNode }, BoundaryState> {
  override state: BoundaryState = { failed: false, checking: false };
  #off: (() => void) | undefined;

  static getDerivedStateFromError(): Partial<BoundaryState> {
    return { failed: true };
  }

  override componentDidUpdate(_p: unknown, prev: BoundaryState): void {
    if (!this.state.failed || prev.failed) return;
    // Stale code while the server answers: the new page at once (see above).
    if (!reloadedRecently()) void this.#retry();
    // Back online: the stream's reconnect says the server answers again.
    this.#off = events.on("reconnected", () => void this.#retry());
  }

  override componentWillUnmount(): void {
    this.#off?.();
  }

  #retry = async () => {
    this.setState({ checking: true });
    if (!(await reloadWhenServerAnswers())) this.setState({ checking: false });
  };

  override render(): ReactNode {
    if (this.state.failed) {
      return (
        <div className="error-box view-unavailable" role="alert" data-error-code="view_unavailable">
          <p className="error-text">
            {`The ${this.props.what} could not be loaded: the server cannot be reached. It opens by itself when the server is back.`}
          </p>
          <button type="button" className="fix" disabled={this.state.checking} onClick={() => void this.#retry()}>
            {this.state.checking ? "Checking…" : "Try again"}
          </button>
        </div>
      );
    }
    return <Suspense fallback={<p className="muted">{`Loading the ${this.props.what}…`}</p>}>{this.props.children}</Suspense>;
  }
}
