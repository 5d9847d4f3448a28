/** The page frame: header (server, live state, attention inbox), notice line and the routed view. */
import { useEffect } from "react";
import { Board } from "./board/Board.js";
import { Header } from "./Header.js";
import { INBOX_PATH } from "./Inbox.js";
import { CommandPalette } from "./ui/CommandPalette.js";
import { attention, needsYou } from "./live/attention.js";
import { notice, useStore } from "./live/store.js";
import { lazyView, ViewBoundary } from "./ui/lazy-view.js";
import { Link, match, useLocation } from "./router.js";

// The board is the first screen; every other view loads on demand (the initial script stays
// small), and the page names its chunks for the browser to prefetch (WEB-18, ui/lazy-view.tsx).
const ReviewPage = lazyView(() => import("./review/ReviewPage.js"));
const TaskPage = lazyView<{ taskId: string }>(() => import("./task/TaskPage.js").then((m) => ({ default: m.TaskPage })));
const RepositoriesPage = lazyView<object>(() => import("./repositories/RepositoriesPage.js").then((m) => ({ default: m.RepositoriesPage })));
const TrashPage = lazyView<object>(() => import("./trash/TrashPage.js").then((m) => ({ default: m.TrashPage })));
// USE-1: the Usage page brings its charting library (uPlot) with it; the board never loads it.
const UsagePage = lazyView<object>(() => import("./usage/UsagePage.js").then((m) => ({ default: m.UsagePage })));
// WF-1: the workflows' editor (its YAML library) loads only on its page.
const WorkflowsPage = lazyView<object>(() => import("./workflows/WorkflowsPage.js").then((m) => ({ default: m.WorkflowsPage })));
const SettingsPage = lazyView<object>(() => import("./settings/SettingsPage.js").then((m) => ({ default: m.SettingsPage })));

function Routed() {
  const { pathname } = useLocation();
  // The inbox lives in the header: its address shows the board under it.
  if (pathname === "/" || pathname === INBOX_PATH) return <Board archived={false} />;
  if (pathname === "/archived") return <Board archived />;
  if (pathname === "/repositories")
    return (
      <ViewBoundary what="repositories">
        <RepositoriesPage />
      </ViewBoundary>
    );
  if (pathname === "/trash")
    return (
      <ViewBoundary what="trash">
        <TrashPage />
      </ViewBoundary>
    );
  if (pathname === "/settings")
    return (
      <ViewBoundary what="settings">
        <SettingsPage />
      </ViewBoundary>
    );
  if (pathname === "/workflows")
    return (
      <ViewBoundary what="workflows">
        <WorkflowsPage />
      </ViewBoundary>
    );
  if (pathname === "/usage")
    return (
      <ViewBoundary what="usage">
        <UsagePage />
      </ViewBoundary>
    );
  const review = match("/tasks/:id/review", pathname);
  if (review?.id)
    return (
      <ViewBoundary what="review" key={pathname}>
        <ReviewPage taskId={review.id} />
      </ViewBoundary>
    );
  const task = match("/tasks/:id", pathname);
  if (task?.id)
    return (
      <ViewBoundary what="task" key={pathname}>
        <TaskPage key={task.id} taskId={task.id} />
      </ViewBoundary>
    );
  return (
    <>
      <h1>Not found</h1>
      <p>
        No page at <code>{pathname}</code>. <Link href="/">Go to the board</Link>
      </p>
    </>
  );
}

export function App() {
  const items = needsYou(useStore(attention));
  const message = useStore(notice);
  useEffect(() => {
    document.title = items.length > 0 ? `(${items.length}) Grove` : "Grove";
  }, [items.length]);
  return (
    <>
      <Header />
      <CommandPalette />
      <main id="view">
        {message ? (
          <div className="notice" role="status">
            {message}{" "}
            <button type="button" className="secondary small" onClick={() => notice.set(null)}>
              Dismiss
            </button>
          </div>
        ) : null}
        <Routed />
      </main>
    </>
  );
}
