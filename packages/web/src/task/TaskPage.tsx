/**
 * The task page (`/tasks/:id`): title and state, its parent (a subtask), the agent's reported
 * progress and the task's subtasks (MCP-2/MCP-3), sessions with the live stream, Changes,
 * repositories and environment (Restore for a missing worktree), the terminal, and
 * archive/delete. A deleted task sends the person back to the board with a notice; an archived
 * one is read-only with Unarchive.
 */
import type { Repository, Task } from "@grove/protocol";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useMemo, useState } from "react";
import { ApiError, call } from "../api/client.js";
import { keys } from "../api/keys.js";
import { getChanges, getTask, listRepositories, listSessions } from "../api/resources.js";
import { TASK_STATES } from "../board/column-query.js";
import { useCapabilities } from "../api/capabilities.js";
import { markTaskRead, setWatchingTask } from "../live/attention.js";
import { putTask } from "../live/cache.js";
import { events } from "../live/events.js";
import { notice } from "../live/store.js";
import { Link, navigate } from "../router.js";
import { ErrorBox } from "../ui/ErrorBox.js";
import { Field, when } from "../ui/Field.js";
import { taskStateWords } from "../ui/words.js";
import { useAction } from "../ui/use-action.js";
import { lazyView, ViewBoundary } from "../ui/lazy-view.js";
import { usePaletteCommands } from "../ui/palette-commands.js";
import { ChangesSummary } from "./ChangesSummary.js";
import { Environment } from "./Environment.js";
import { Lifecycle } from "./Lifecycle.js";
import { Progress } from "./Progress.js";
import { Sessions } from "./Sessions.js";
import { ParentLink, Subtasks } from "./Subtasks.js";
import { WorkflowRuns } from "./WorkflowRuns.js";

const TerminalPanel = lazyView(() => import("../terminal/TerminalPanel.js"));

function goneToBoard(title: string | undefined): void {
  notice.set(`This task was deleted${title ? `: ${title}` : ""}. It is in the Trash until it is purged.`);
  navigate("/", true);
}

export function TaskPage({ taskId }: { taskId: string }) {
  const qc = useQueryClient();
  // A record the event feed made from `task.*` frames alone (the page never read it) lacks what
  // only `GET /tasks/:id` carries (runner labels, the agent's progress): read it on opening.
  const task = useQuery({
    queryKey: keys.task(taskId),
    queryFn: () => getTask(taskId),
    refetchOnMount: (q) => ((q.state.data as Task | undefined)?.runnerLabels === undefined ? "always" : false),
  });
  const repos = useQuery({ queryKey: keys.repositories, queryFn: listRepositories });
  const sessions = useQuery({ queryKey: keys.sessions(taskId), queryFn: () => listSessions(taskId) });
  const changes = useQuery({ queryKey: keys.changes(taskId), queryFn: () => getChanges(taskId), enabled: task.isSuccess });
  const caps = useCapabilities();
  const move = useAction();
  const restore = useAction();
  const unarchive = useAction();
  const [state, setState] = useState<Task["state"] | "">("");
  const names = useMemo(() => new Map((repos.data ?? []).map((r: Repository) => [r.id, r.name])), [repos.data]);
  const repoName = (id: string) => names.get(id) ?? id;
  const t = task.data;
  const reviewable = (changes.data?.repositories ?? []).some((r) => (r.status !== "missing" && r.files.length > 0) || r.ahead > 0);
  // WEB-36: the review is a palette command away while there is something to review.
  const commands = useMemo(
    () => (reviewable ? [{ id: "review-changes", label: "Review changes", hint: "this task", run: () => navigate(`/tasks/${taskId}/review`) }] : null),
    [reviewable, taskId],
  );
  usePaletteCommands("task", commands);

  useEffect(() => {
    setWatchingTask(taskId);
    // What finished or failed here has been seen now: read, not done (its cause clears it, LIVE-4).
    markTaskRead(taskId);
    const off = events.on("task.deleted", ({ taskId: gone }) => gone === taskId && goneToBoard(qc.getQueryData<Task>(keys.task(taskId))?.title));
    return () => {
      setWatchingTask(null);
      off();
    };
  }, [taskId, qc]);

  // Known before and 404 now: it was deleted while the page was open.
  const deleted = task.error instanceof ApiError && task.error.code === "not_found" && !!t;
  useEffect(() => {
    if (deleted) goneToBoard(t?.title);
  }, [deleted, t?.title]);

  if (task.error) {
    return (
      <>
        <p>
          <Link href="/">← Board</Link>
        </p>
        <ErrorBox error={task.error} context={`Task ${taskId}`} fixes={{ back_to_board: () => navigate("/") }} />
      </>
    );
  }
  if (!t) return <p className="muted">Loading…</p>;

  const archived = t.archivedAt !== null;
  // An environment exists once the task has a runner, sessions or Changes.
  const known = Boolean(t.runnerId) || (sessions.data?.length ?? 0) > 0 || (changes.data?.repositories.length ?? 0) > 0;
  const refreshFiles = () => {
    void qc.invalidateQueries({ queryKey: keys.changes(taskId) });
    void qc.invalidateQueries({ queryKey: keys.environment(taskId) });
  };
  const doRestore = () => void restore.run(() => call("restoreTaskEnvironment", { params: { id: taskId } }).then(refreshFiles));
  // putTask drops what Changes said before the archive (the worktrees come back with the next session).
  const doUnarchive = () => void unarchive.run(() => call("unarchiveTask", { params: { id: taskId } }).then((next) => putTask(qc, next)));
  const doMove = () => void move.run(() => call("updateTask", { params: { id: taskId }, body: { state: state || t.state } }).then((next) => putTask(qc, next)));
  const worktrees = (changes.data?.repositories ?? []).filter((r) => r.status !== "missing");

  return (
    <>
      <p>
        <Link href="/">← Board</Link>
      </p>
      <header className="task-head">
        <h1 id="task-title">{t.title}</h1>
        <div className="task-meta">
          <span className={`badge state-${t.state}`} id="task-state" data-state={t.state}>
            {taskStateWords(t.state)}
          </span>
          {archived ? <span className="badge archived">archived {when(t.archivedAt)}</span> : null}
          {t.runnerState === "offline" ? (
            <span
              className="badge runner-offline"
              id="task-runner-offline"
              data-runner-state="offline"
              title="its worktrees live on that runner: file and agent operations are refused until it is back"
            >
              runner {t.runnerId} offline
            </span>
          ) : null}
          <span className="muted">created {when(t.createdAt)}</span>
          {/* Internals, for bug reports and the CLI: behind a toggle, never in the reading line. */}
          <details className="internals">
            <summary>Details</summary>
            <dl>
              <dt>Task id</dt>
              <dd>
                <code>{t.id}</code>
              </dd>
              {t.runnerId ? (
                <>
                  <dt>Runner</dt>
                  <dd>
                    <code>{t.runnerId}</code>
                  </dd>
                </>
              ) : null}
            </dl>
          </details>
          {archived ? null : (
            <span className="move">
              <Field label="State">
                <select name="state" value={state || t.state} onChange={(e) => setState(e.target.value as Task["state"])}>
                  {TASK_STATES.map((s) => (
                    <option key={s} value={s}>
                      {taskStateWords(s)}
                    </option>
                  ))}
                </select>
              </Field>
              <button type="button" className="secondary" disabled={move.busy} onClick={doMove}>
                Move
              </button>
            </span>
          )}
          {reviewable ? (
            <Link className="button-link" href={`/tasks/${taskId}/review`}>
              Review changes
            </Link>
          ) : null}
        </div>
        {t.parentId ? <ParentLink parentId={t.parentId} /> : null}
        {t.description ? <p className="description">{t.description}</p> : null}
        <ErrorBox error={move.error} context="Move" />
      </header>
      {archived ? (
        <div className="notice archived-banner" role="status">
          This task is archived and read-only. Its worktrees were removed; its branches and uncommitted work were saved.{" "}
          <button type="button" disabled={unarchive.busy} onClick={doUnarchive}>
            Unarchive
          </button>
          <ErrorBox error={unarchive.error} />
        </div>
      ) : null}
      <div className="task-grid">
        <div className="col-main">
          <Sessions taskId={taskId} task={t} readOnly={archived} fixes={{ restore: doRestore, unarchive: doUnarchive }} />
          <WorkflowRuns taskId={taskId} sessions={sessions.data} />
          {!archived && worktrees.length > 0 && caps?.has("GET /tasks/{id}/terminal") ? (
            <ViewBoundary what="terminal">
              <TerminalPanel taskId={taskId} repositories={worktrees.map((r) => ({ id: r.repositoryId, name: repoName(r.repositoryId) }))} />
            </ViewBoundary>
          ) : null}
        </div>
        <div className="col-side">
          {t.progress ? <Progress progress={t.progress} /> : null}
          <Subtasks taskId={taskId} />
          <ChangesSummary taskId={taskId} changes={changes.data} error={changes.error} repoName={repoName} archived={archived} done={t.state === "done"} />
          <Environment
            task={t}
            known={known}
            changes={changes.data}
            repoName={repoName}
            onRestore={doRestore}
            restoring={restore.busy}
            restoreError={restore.error}
          />
          <Lifecycle task={t} onUnarchive={doUnarchive} onDeleted={() => goneToBoard(t.title)} />
        </div>
      </div>
    </>
  );
}
