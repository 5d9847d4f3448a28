/** The page frame: header (server, live state, attention inbox), notice line and the routed view. */
import { lazy, Suspense, useEffect } from "react";
import { Board } from "./board/Board.js";
import { Header } from "./Header.js";
import { attention } from "./live/attention.js";
import { notice, useStore } from "./live/store.js";
import { Link, match, useLocation } from "./router.js";

// The board is the first screen; every other view loads on demand (the initial script stays small).
const ReviewPage = lazy(() => import("./review/ReviewPage.js"));
const TaskPage = lazy(() => import("./task/TaskPage.js").then((m) => ({ default: m.TaskPage })));
const RepositoriesPage = lazy(() => import("./repositories/RepositoriesPage.js").then((m) => ({ default: m.RepositoriesPage })));

const loading = (what: string) => <p className="muted">{`Loading the ${what}…`}</p>;

function Routed() {
  const { pathname } = useLocation();
  if (pathname === "/") return <Board archived={false} />;
  if (pathname === "/archived") return <Board archived />;
  if (pathname === "/repositories")
    return (
      <Suspense fallback={loading("repositories")}>
        <RepositoriesPage />
      </Suspense>
    );
  const review = match("/tasks/:id/review", pathname);
  if (review?.id)
    return (
      <Suspense fallback={loading("review")}>
        <ReviewPage taskId={review.id} />
      </Suspense>
    );
  const task = match("/tasks/:id", pathname);
  if (task?.id)
    return (
      <Suspense fallback={loading("task")}>
        <TaskPage key={task.id} taskId={task.id} />
      </Suspense>
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
  const items = useStore(attention);
  const message = useStore(notice);
  useEffect(() => {
    document.title = items.length > 0 ? `(${items.length}) Grove` : "Grove";
  }, [items.length]);
  return (
    <>
      <Header />
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
