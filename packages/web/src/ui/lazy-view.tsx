/**
 * WEB-18: views that load on demand, without ever stranding the person on the browser's own
 * error page. The page names every view's chunk as a prefetch link (vite.config.ts,
 * prefetch-views.ts), so the browser keeps them in its cache once the page has loaded and a
 * click while the server is down finds them there; a view that still cannot load shows an in-app
 * message inside the page frame, which loads it again once the server answers.
 *
 * The one recovery for a view's code that did not load is a reload, and only once the server
 * answers: then the failure was stale code (a page older than the server's rebuilt one) or a
 * past outage; while the server is down a reload would be the browser's error page.
 */
import { Component, lazy, Suspense, type ComponentType, type ReactNode } from "react";
import { events } from "../live/events.js";

/** A view that loads on demand: React renders it inside a {@link ViewBoundary}. */
export function lazyView<P>(load: () => Promise<{ default: ComponentType<P> }>): ComponentType<P> {
  return lazy(load) as unknown as ComponentType<P>;
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
