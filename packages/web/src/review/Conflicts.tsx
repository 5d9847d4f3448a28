/**
 * RV-8: the conflict view of a task whose update from base stopped on conflicts (kept with
 * "Update and keep the conflicts", or by `grove task update --keep-conflicts`). Per repository:
 * the conflicted files with their marked regions, and the ways out — send the conflicts to the
 * agent (hunks in the prompt, optional words), continue once the files are resolved, or abort
 * (branch, index and files back as before the update).
 */
import type { Session, TaskConflicts } from "@grove/protocol";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { call } from "../api/client.js";
import type { Operation } from "../api/human-errors.js";
import { keys } from "../api/keys.js";
import { getConflicts } from "../api/resources.js";
import { ErrorBox } from "../ui/ErrorBox.js";
import { Field } from "../ui/Field.js";
import { useAction } from "../ui/use-action.js";

export function Conflicts({ taskId, sessions, names }: { taskId: string; sessions: Session[]; names: Map<string, string> }) {
  const qc = useQueryClient();
  const conflicts = useQuery({ queryKey: keys.conflicts(taskId), queryFn: () => getConflicts(taskId) });
  const action = useAction();
  const [op, setOp] = useState<Operation | undefined>(undefined);
  const [words, setWords] = useState("");
  const [result, setResult] = useState("");
  const target = [...sessions].sort((a, b) => b.createdAt.localeCompare(a.createdAt))[0];
  const busyTurn = target ? target.state === "running" || target.state === "starting" : false;
  const refresh = () => {
    for (const key of [keys.conflicts(taskId), keys.changes(taskId), ["diff", taskId]]) void qc.invalidateQueries({ queryKey: key });
  };
  const run = (operation: Operation | undefined, done: string, fn: () => Promise<unknown>) =>
    void action.run(async () => {
      setOp(operation);
      setResult("");
      try {
        await fn();
        setResult(done);
      } finally {
        refresh();
      }
    });
  const repos: TaskConflicts["repositories"] = conflicts.data?.repositories ?? [];
  if (repos.length === 0) {
    return result ? (
      <p className="notice" role="status">
        {result}
      </p>
    ) : null;
  }
  return (
    <section className="card conflicts" aria-label="Conflicts">
      <h2>Update from base stopped on conflicts</h2>
      {repos.map((r) => {
        const open = r.files.filter((f) => !f.resolved).length;
        return (
          <div key={r.repositoryId} className="conflict-repo" data-repository-id={r.repositoryId}>
            <p>
              <strong>{names.get(r.repositoryId) ?? r.repositoryId}</strong>: the {r.operation} stopped.{" "}
              {open === 0 ? "Every file is resolved: continue to finish the update." : `${open} of ${r.files.length} file(s) still hold conflict markers.`}
            </p>
            <ul className="plain conflict-files" aria-label="Conflicted files">
              {r.files.map((f) => (
                <li key={f.path} data-path={f.path} data-resolved={f.resolved}>
                  <code>{f.path}</code>{" "}
                  <span className={`badge ${f.resolved ? "state-done" : "file-conflicted"}`}>
                    {f.resolved ? "resolved" : `${f.hunks.length} conflict${f.hunks.length === 1 ? "" : "s"}`}
                  </span>
                  {f.hunks.map((h) => (
                    <pre key={h.startLine} className="conflict-hunk" aria-label={`${f.path} lines ${h.startLine}-${h.endLine}`}>
                      {h.text}
                    </pre>
                  ))}
                </li>
              ))}
            </ul>
            <div className="actions">
              <button
                type="button"
                disabled={action.busy || open > 0}
                title={open > 0 ? "Resolve every file first (or send them to the agent)" : undefined}
                onClick={() =>
                  run("continue_update", "Update finished.", () =>
                    call("continueTaskUpdate", { params: { id: taskId }, body: { repositoryId: r.repositoryId } }),
                  )
                }
              >
                Continue the update
              </button>
              <button
                type="button"
                className="secondary"
                disabled={action.busy}
                onClick={() =>
                  run("abort_update", "Update aborted: the branch is back as before.", () =>
                    call("abortTaskUpdate", { params: { id: taskId }, body: { repositoryId: r.repositoryId } }),
                  )
                }
              >
                Abort the update
              </button>
            </div>
          </div>
        );
      })}
      <form
        className="send-conflicts"
        aria-label="Send the conflicts to the agent"
        onSubmit={(e) => {
          e.preventDefault();
          run(undefined, "Sent the conflicts to the agent.", () =>
            call("sendTaskConflicts", {
              params: { id: taskId },
              body: words.trim() ? { sessionId: target!.id, prompt: words } : { sessionId: target!.id },
            }).then(() => setWords("")),
          );
        }}
      >
        <Field label="Words for the agent with the conflicts (optional)">
          <textarea rows={2} value={words} onChange={(e) => setWords(e.target.value)} />
        </Field>
        <div className="actions">
          <button type="submit" disabled={!target || busyTurn || action.busy}>
            Send the conflicts to the agent
          </button>
          {!target ? (
            <span className="muted">Start a session to send the conflicts.</span>
          ) : busyTurn ? (
            <span className="muted">The agent is working; refresh when its turn ends.</span>
          ) : null}
          <button type="button" className="secondary" onClick={refresh}>
            Refresh
          </button>
        </div>
      </form>
      <ErrorBox error={action.error ?? conflicts.error} operation={op} />
      {result ? (
        <p className="notice" role="status">
          {result}
        </p>
      ) : null}
    </section>
  );
}
