/**
 * The all-files review of a task (`/tasks/:id/review`): a file tree with status, ± counts and
 * "viewed" ticks; files committed on the branch apart from uncommitted ones; unified or split
 * view; line comments (comments API) inline; the landing actions. Loaded on demand
 * with its highlighter, so the board's initial JS stays small.
 */
import type { ChangedFile, Repository, Task } from "@grove/protocol";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useMemo, useState } from "react";
import { call } from "../api/client.js";
import { keys } from "../api/keys.js";
import { getChanges, getTask, listComments, listPullRequests, listRepositories, listSessions } from "../api/resources.js";
import type { Comment as ReviewComment } from "@grove/protocol";
import { useCapabilities } from "../api/capabilities.js";
import { setWatchingTask } from "../live/attention.js";
import { Link } from "../router.js";
import { ErrorBox } from "../ui/ErrorBox.js";
import { useAction } from "../ui/use-action.js";
import { fileStatusWords } from "../ui/words.js";
import { FileDiff } from "./FileDiff.js";
import { ReviewActions } from "./ReviewActions.js";
import { Conflicts } from "./Conflicts.js";

type Entry = { repositoryId: string; file: ChangedFile; scope?: "committed" | "uncommitted" };
const uncommitted = (f: ChangedFile) => f.staged || f.unstaged || f.status === "untracked";
// RV-7: the branch's commits change it too (a file committed and then edited again is in both sections).
const committed = (f: ChangedFile) => !uncommitted(f) || f.committed === true;
const both = (f: ChangedFile) => uncommitted(f) && f.committed === true;
const viewedKey = (taskId: string) => `grove.viewed.${taskId}`;

function useViewed(taskId: string): [Set<string>, (id: string, v: boolean) => void] {
  const [set, setSet] = useState(() => new Set<string>(JSON.parse(localStorage.getItem(viewedKey(taskId)) ?? "[]") as string[]));
  const toggle = (id: string, v: boolean) => {
    const next = new Set(set);
    if (v) next.add(id);
    else next.delete(id);
    localStorage.setItem(viewedKey(taskId), JSON.stringify([...next]));
    setSet(next);
  };
  return [set, toggle];
}

export default function ReviewPage({ taskId }: { taskId: string }) {
  const qc = useQueryClient();
  const caps = useCapabilities();
  const task = useQuery({ queryKey: keys.task(taskId), queryFn: () => getTask(taskId) });
  const changes = useQuery({ queryKey: keys.changes(taskId), queryFn: () => getChanges(taskId) });
  const repos = useQuery({ queryKey: keys.repositories, queryFn: listRepositories });
  const sessions = useQuery({ queryKey: keys.sessions(taskId), queryFn: () => listSessions(taskId) });
  const canComment = !!caps?.has("GET /tasks/{id}/comments");
  const comments = useQuery({ queryKey: keys.comments(taskId), queryFn: () => listComments(taskId), enabled: canComment });
  const prs = useQuery({ queryKey: keys.pullRequests(taskId), queryFn: () => listPullRequests(taskId), enabled: !!caps?.has("GET /tasks/{id}/pull-requests") });
  const [mode, setMode] = useState<"unified" | "split">(() => (localStorage.getItem("grove.diffMode") === "split" ? "split" : "unified"));
  const [viewed, setViewed] = useViewed(taskId);
  const comment = useAction();
  const names = useMemo(() => new Map((repos.data ?? []).map((r: Repository) => [r.id, r.name])), [repos.data]);
  const archived = (task.data as Task | undefined)?.archivedAt;
  // A pull request needs a provider: a repository added by path ("local") has none (unknown until both are read).
  const providers = new Map((repos.data ?? []).map((r: Repository) => [r.id, r.provider]));
  const canOpenPr = repos.data && task.data ? task.data.repositories.some((r) => providers.get(r.repositoryId) !== "local") : undefined;

  useEffect(() => localStorage.setItem("grove.diffMode", mode), [mode]);
  useEffect(() => {
    // The person is looking at this task: its finished turns need no inbox item.
    setWatchingTask(taskId);
    return () => setWatchingTask(null);
  }, [taskId]);
  // Changes move with every edit (changes.updated): the conflict view follows them.
  useEffect(() => {
    void qc.invalidateQueries({ queryKey: keys.conflicts(taskId) });
  }, [changes.dataUpdatedAt, qc, taskId]);
  useEffect(() => {
    // A link from the task page names a file in the hash: bring it into view once loaded.
    const id = decodeURIComponent(location.hash.slice(1));
    if (id && changes.data) document.getElementById(id)?.scrollIntoView();
  }, [changes.data]);

  const entries: Entry[] = (changes.data?.repositories ?? []).flatMap((r) => r.files.map((file) => ({ repositoryId: r.repositoryId, file })));
  // A file in both sections shows each part's own patch (`?scope=`); a file in one shows it all.
  const sections = [
    { title: "Uncommitted changes", items: entries.filter((e) => uncommitted(e.file)).map((e): Entry => (both(e.file) ? { ...e, scope: "uncommitted" } : e)) },
    { title: "Committed on the branch", items: entries.filter((e) => committed(e.file)).map((e): Entry => (both(e.file) ? { ...e, scope: "committed" } : e)) },
  ].filter((s) => s.items.length > 0);
  const id = (e: Entry) => `${e.repositoryId}:${e.file.path}${e.scope ? `:${e.scope}` : ""}`;
  const parts = sections.flatMap((s) => s.items);
  const addComment = (repositoryId: string, path: string) => (line: number, side: "new" | "old", body: string) =>
    comment.run(async () => {
      await call("addReviewComment", { params: { id: taskId }, body: { repositoryId, path, line, side, body } });
      await qc.invalidateQueries({ queryKey: keys.comments(taskId) });
    });
  const resolve = (c: ReviewComment) =>
    void comment.run(() =>
      call("updateReviewComment", { params: { id: c.id }, body: { state: "resolved" } }).then(() => qc.invalidateQueries({ queryKey: keys.comments(taskId) })),
    );

  return (
    <div className="review-page">
      <p>
        <Link href={`/tasks/${taskId}`}>← {task.data?.title ?? "Task"}</Link>
      </p>
      <div className="review-head">
        <h1>Review</h1>
        <div className="segmented" role="group" aria-label="Diff layout">
          <button type="button" className={mode === "unified" ? "" : "secondary"} aria-pressed={mode === "unified"} onClick={() => setMode("unified")}>
            Unified
          </button>
          <button type="button" className={mode === "split" ? "" : "secondary"} aria-pressed={mode === "split"} onClick={() => setMode("split")}>
            Split
          </button>
        </div>
        <span className="muted">
          {viewed.size > 0
            ? `${parts.filter((e) => viewed.has(id(e))).length} of ${parts.length} files viewed`
            : `${entries.length} ${entries.length === 1 ? "file" : "files"}`}
        </span>
      </div>
      <ErrorBox error={changes.error ?? task.error} context="Could not load the changes" />
      <ErrorBox error={comment.error} context="Comment" />
      <div className="review-grid">
        <nav className="file-tree" aria-label="Changed files">
          {sections.map((s) => (
            <div key={s.title}>
              <h2>{s.title}</h2>
              <ul className="plain">
                {s.items.map((e) => (
                  <li key={id(e)} className={viewed.has(id(e)) ? "viewed" : ""}>
                    {/* WEB-49.7: the letter is a glyph; its word is the badge's name and tooltip. */}
                    <span
                      className={`badge file-${e.file.status}`}
                      role="img"
                      aria-label={fileStatusWords(e.file.status)}
                      title={fileStatusWords(e.file.status)}
                    >
                      {e.file.status[0]!.toUpperCase()}
                    </span>{" "}
                    <a href={`#${encodeURIComponent(id(e))}`} onClick={(ev) => (ev.preventDefault(), document.getElementById(id(e))?.scrollIntoView())}>
                      {e.file.path}
                    </a>{" "}
                    <span className="stat">
                      {e.file.binary ? (
                        "bin"
                      ) : (
                        <>
                          <span className="add">+{e.file.additions}</span> {e.file.deletions ? <span className="del">−{e.file.deletions}</span> : null}
                        </>
                      )}
                    </span>
                    {viewed.has(id(e)) ? <span aria-label="viewed"> ✓</span> : null}
                    {(changes.data?.repositories.length ?? 0) > 1 ? <small className="muted"> {names.get(e.repositoryId)}</small> : null}
                  </li>
                ))}
              </ul>
            </div>
          ))}
          {changes.data && entries.length === 0 ? <p className="empty">No changes to review.</p> : null}
        </nav>
        <div className="review-files">
          {caps?.has("GET /tasks/{id}/conflicts") && !archived ? <Conflicts taskId={taskId} sessions={sessions.data ?? []} names={names} /> : null}
          {caps && !archived ? (
            <ReviewActions
              taskId={taskId}
              caps={caps}
              comments={comments.data ?? []}
              sessions={sessions.data ?? []}
              pullRequests={prs.data ?? []}
              hasUncommitted={entries.some((e) => uncommitted(e.file))}
              hasFiles={entries.length > 0}
              taskState={(task.data as Task | undefined)?.state}
              canOpenPr={canOpenPr}
              landing={(changes.data?.repositories ?? []).map((r) => ({
                name: names.get(r.repositoryId) ?? r.repositoryId,
                branch: r.branch,
                baseBranch: r.baseBranch,
                ahead: r.ahead,
              }))}
            />
          ) : null}
          {sections.map((s) => (
            <section key={s.title} aria-label={s.title}>
              <h2>{s.title}</h2>
              {s.items.map((e) => (
                <FileDiff
                  key={id(e)}
                  taskId={taskId}
                  repositoryId={e.repositoryId}
                  file={e.file}
                  {...(e.scope ? { scope: e.scope } : {})}
                  mode={mode}
                  comments={(comments.data ?? []).filter((c) => c.repositoryId === e.repositoryId && c.path === e.file.path)}
                  viewed={viewed.has(id(e))}
                  onViewed={(v) => setViewed(id(e), v)}
                  onComment={canComment && !archived ? addComment(e.repositoryId, e.file.path) : undefined}
                  onResolve={canComment && !archived ? resolve : undefined}
                />
              ))}
            </section>
          ))}
        </div>
      </div>
    </div>
  );
}
