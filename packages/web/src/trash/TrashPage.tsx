/**
 * LIVE-5: the trash (`/trash`): deleted tasks, most recently deleted first, with when each is
 * purged for good, and Restore — the task comes back with its sessions, transcripts, branches
 * and saved work (its worktrees with the next session).
 */
import type { Task, TrashedTask } from "@grove/protocol";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { call } from "../api/client.js";
import { keys } from "../api/keys.js";
import { putTask } from "../live/cache.js";
import { Link } from "../router.js";
import { ErrorBox } from "../ui/ErrorBox.js";
import { when } from "../ui/Field.js";
import { useAction } from "../ui/use-action.js";

export function TrashPage() {
  const qc = useQueryClient();
  const trash = useQuery({ queryKey: keys.trash, queryFn: () => call("listTrash") });
  const action = useAction();
  const [restored, setRestored] = useState<Task | null>(null);
  const restore = (t: TrashedTask) =>
    void action.run(async () => {
      const back = await call("restoreDeletedTask", { params: { id: t.id } });
      putTask(qc, back);
      setRestored(back);
      await qc.invalidateQueries({ queryKey: keys.trash });
    });
  const items = trash.data ?? [];
  return (
    <section className="card trash" aria-label="Trash">
      <h1>Trash</h1>
      <p className="muted">Deleted tasks stay here with their sessions, transcripts, branches and saved work until they are purged.</p>
      <ErrorBox error={trash.error} context="Could not load the trash" />
      <ErrorBox error={action.error} context="Restore" />
      {restored ? (
        <p className="notice" role="status">
          Restored: <Link href={`/tasks/${restored.id}`}>{restored.title}</Link>. Its worktrees come back with the next session.
        </p>
      ) : null}
      {trash.data && items.length === 0 ? <p className="empty">The trash is empty.</p> : null}
      {items.length > 0 ? (
        <table className="trash-list">
          <thead>
            <tr>
              <th>Task</th>
              <th>Deleted</th>
              <th>Purged</th>
              <th>
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {items.map((t) => (
              <tr key={t.id} data-task-id={t.id}>
                <td>{t.title}</td>
                <td>{when(t.deletedAt)}</td>
                <td>{when(t.purgeAt)}</td>
                <td>
                  <button type="button" disabled={action.busy} onClick={() => restore(t)} aria-label={`Restore ${t.title}`}>
                    Restore
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}
