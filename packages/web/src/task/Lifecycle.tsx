/**
 * Archive, unarchive and delete of a task, and its cleanup jobs (LC-2) kept live by
 * `cleanup_job.updated`. A delete asks first (LIVE-5: the task goes to the trash, restorable
 * until it is purged); one refused with `409 dirty_worktree` asks the person, in their words,
 * before retrying with `discardChanges=true`. An archive refused with `409 task_has_children`
 * asks what becomes of the open subtasks (ArchiveSubtasksDialog).
 */
import type { Task } from "@grove/protocol";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useRef, useState } from "react";
import { ApiError, call } from "../api/client.js";
import { keys } from "../api/keys.js";
import { listCleanupJobs } from "../api/resources.js";
import { humanError } from "../api/human-errors.js";
import { ErrorBox } from "../ui/ErrorBox.js";
import { when } from "../ui/Field.js";
import { useAction } from "../ui/use-action.js";
import { jobStateWords } from "../ui/words.js";
import { ArchiveSubtasksDialog, type ChildrenChoice } from "./ArchiveSubtasksDialog.js";

/** Job states after which nothing more happens (the toggle closes by itself). */
const FINISHED: readonly string[] = ["succeeded", "cancelled"];
export function Lifecycle({ task, onUnarchive, onDeleted }: { task: Task; onUnarchive(): void; onDeleted(): void }) {
  const qc = useQueryClient();
  const jobs = useQuery({ queryKey: keys.cleanupJobs(task.id), queryFn: () => listCleanupJobs(task.id) });
  const action = useAction();
  const [confirm, setConfirm] = useState<ApiError | null>(null);
  const [asking, setAsking] = useState(false);
  const reloadJobs = () => qc.invalidateQueries({ queryKey: keys.cleanupJobs(task.id) });

  const del = (discardChanges: boolean) => {
    setConfirm(null);
    setAsking(false);
    void action.run(async () => {
      try {
        await call("deleteTask", { params: { id: task.id }, query: discardChanges ? { discardChanges: true } : {} });
        onDeleted();
        return;
      } catch (e) {
        if (!(e instanceof ApiError && e.code === "dirty_worktree" && !discardChanges)) throw e;
        setConfirm(e);
      }
      // The refused attempt announced a job it did not keep: re-read what the server keeps.
      await reloadJobs();
    });
  };
  // MCP-3.7: a task with open subtasks is refused until the person says what becomes of them.
  const [openSubtasks, setOpenSubtasks] = useState<number | null>(null);
  const archiveButton = useRef<HTMLButtonElement>(null);
  const archive = (children?: ChildrenChoice) => {
    setOpenSubtasks(null);
    void action.run(async () => {
      try {
        await call("archiveTask", { params: { id: task.id }, body: children ? { children } : undefined });
      } catch (e) {
        if (!(e instanceof ApiError && e.code === "task_has_children" && !children)) throw e;
        setOpenSubtasks(Array.isArray(e.details?.children) ? e.details.children.length : 1);
      }
      await reloadJobs();
    });
  };
  const cancelArchive = () => {
    setOpenSubtasks(null);
    archiveButton.current?.focus();
  };
  const list = [...(jobs.data ?? [])].sort((a, b) => b.createdAt.localeCompare(a.createdAt));

  return (
    <section className="card lifecycle" aria-label="Lifecycle">
      <h2>Archive and delete</h2>
      <div className="actions">
        {task.archivedAt ? (
          <button type="button" disabled={action.busy} onClick={onUnarchive}>
            Unarchive
          </button>
        ) : (
          // Archive is not the page's forward action: secondary, like every action that takes the task away.
          <button ref={archiveButton} type="button" className="secondary" disabled={action.busy} onClick={() => archive()}>
            Archive
          </button>
        )}
        {/* WEB-39: secondary like Archive (it asks first); only its confirmation is the red button. */}
        <button type="button" className="secondary danger-text" disabled={action.busy || asking} onClick={() => setAsking(true)}>
          Delete task
        </button>
      </div>
      <ErrorBox error={action.error} />
      {openSubtasks !== null ? <ArchiveSubtasksDialog title={task.title} open={openSubtasks} onChoose={archive} onCancel={cancelArchive} /> : null}
      {asking ? (
        <div className="confirm" role="alertdialog" aria-label="Confirm delete" data-step="trash">
          <p>
            <strong>Move “{task.title}” to the trash?</strong>
          </p>
          <p className="muted">
            Its worktrees are removed; its sessions, transcripts, branches and uncommitted work are kept, and you can restore it from the Trash until it is
            purged.
          </p>
          <div className="actions">
            <button type="button" className="danger" onClick={() => del(false)}>
              Move to trash
            </button>
            <button type="button" className="secondary" onClick={() => setAsking(false)}>
              Keep the task
            </button>
          </div>
        </div>
      ) : null}
      {confirm ? (
        <div className="confirm" role="alertdialog" aria-label="Confirm delete" data-error-code={confirm.code}>
          <p>
            <strong>{humanError(confirm, "delete").text}</strong>
          </p>
          <p className="muted">The uncommitted changes stay in the trash with the task until it is purged; then they are gone. Archive keeps them for good.</p>
          <div className="actions">
            <button type="button" className="danger" onClick={() => del(true)}>
              Delete anyway (discard changes)
            </button>
            <button type="button" className="secondary" onClick={() => setConfirm(null)}>
              Keep the task
            </button>
          </div>
        </div>
      ) : null}
      <ErrorBox error={jobs.error} context="Could not load cleanup jobs" />
      {/* WEB-39: cleanup jobs are internals: behind a toggle, open on its own while one is unfinished. */}
      {list.length === 0 ? null : (
        <details className="internals cleanup-jobs" open={list.some((j) => !FINISHED.includes(j.state))}>
          <summary>{`Cleanup jobs (${list.length})`}</summary>
          <table className="jobs">
            <thead>
              <tr>
                <th>Job</th>
                <th>State</th>
                <th className="num">Attempts</th>
                <th>Last error</th>
                <th>Updated</th>
              </tr>
            </thead>
            <tbody>
              {list.map((j) => (
                <tr key={j.id} data-job-id={j.id} data-state={j.state}>
                  <td>{j.trigger}</td>
                  <td>
                    <span className={`badge job-${j.state}`}>{jobStateWords(j.state)}</span>
                  </td>
                  <td className="num">{j.attempts}</td>
                  <td className={j.lastError ? "error" : ""}>{j.lastError ?? "—"}</td>
                  <td>{when(j.updatedAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </details>
      )}
    </section>
  );
}
