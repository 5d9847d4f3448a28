/**
 * WF-2 on the task page: what the task's workflow did by itself (started a reviewer, sent the
 * comments, moved the card, was refused by a guard), newest last, kept live by `workflow.run`
 * frames. Hidden while the task has no runs.
 */
import type { Session, WorkflowRun } from "@grove/protocol";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import { keys } from "../api/keys.js";
import { listWorkflowRuns } from "../api/resources.js";
import { upsert } from "../live/cache.js";
import { events } from "../live/events.js";
import { ErrorBox } from "../ui/ErrorBox.js";
import { when } from "../ui/Field.js";
import { taskStateWords } from "../ui/words.js";

const ACTION_WORDS: Record<string, string> = {
  start_session: "started a session",
  send_comments: "sent the comments",
  send_checks: "sent the failed checks",
  move: "moved the card",
  run: "ran a command",
  prompt: "sent a prompt",
  archive: "archived the task",
  pr_comment: "sent a review comment",
  update_base: "updated from the base",
};

/** A run's state in words (WEB-49.8); the raw one stays in `data-state`. */
const RUN_STATE_WORDS: Record<string, string> = {
  pending: "Waiting",
  running: "Running",
  succeeded: "Done",
  failed: "Failed",
  cancelled: "Cancelled",
  skipped: "Skipped",
};

/** The server's outcome line names the column a run moved to by its id ("turn completed → review"): said by its name. */
const outcomeWords = (outcome: string) => outcome.replace(/→ ([a-z_]+)$/, (_m, id: string) => `→ ${taskStateWords(id)}`);

export function WorkflowRuns({ taskId, sessions }: { taskId: string; sessions: Session[] | undefined }) {
  const qc = useQueryClient();
  // Frames are only heard while this view is mounted: what ran meanwhile is read again on mount.
  const runs = useQuery({ queryKey: keys.workflowRuns(taskId), queryFn: () => listWorkflowRuns(taskId), refetchOnMount: "always" });
  useEffect(() => {
    const off = events.on("workflow.run", ({ taskId: of, run }) => {
      if (of !== taskId) return;
      const known = qc.getQueryData<WorkflowRun[]>(keys.workflowRuns(taskId));
      if (known) qc.setQueryData<WorkflowRun[]>(keys.workflowRuns(taskId), upsert(known, run));
      else void qc.invalidateQueries({ queryKey: keys.workflowRuns(taskId) });
    });
    const offReconnect = events.on("reconnected", () => void qc.invalidateQueries({ queryKey: keys.workflowRuns(taskId) }));
    return () => {
      off();
      offReconnect();
    };
  }, [taskId, qc]);
  const list = [...(runs.data ?? [])].sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  if (list.length === 0 && !runs.error) return null;
  const ordered = [...(sessions ?? [])].sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  const sessionNumber = (id: string | null) => (id ? ordered.findIndex((s) => s.id === id) + 1 : 0);
  return (
    <section className="card workflow-runs" aria-label="Workflow runs">
      <h2>Workflow</h2>
      <ErrorBox error={runs.error} context="Could not load the workflow runs" />
      <ol className="run-list">
        {list.map((r) => {
          const n = sessionNumber(r.sessionId);
          return (
            <li key={r.id} data-run-id={r.id} data-action={r.action} data-step={r.step} data-state={r.state} data-session-id={r.sessionId ?? undefined}>
              <span>
                <strong>{taskStateWords(r.step)}</strong>
                {`: ${r.workflow} ${ACTION_WORDS[r.action] ?? r.action}`}
                {n > 0 ? ` (session #${n})` : ""}
              </span>{" "}
              <span className={`badge state-${r.state}`}>{RUN_STATE_WORDS[r.state] ?? r.state}</span>{" "}
              {r.outcome ? <span className="run-outcome">{outcomeWords(r.outcome)}</span> : null} <small className="muted">{when(r.updatedAt)}</small>
              {r.result && r.result.output ? (
                // WF-2.13: the end of the command's output (at most 4 KiB, kept on the run).
                <pre className="run-output" aria-label="Command output">
                  {r.result.output}
                </pre>
              ) : null}
            </li>
          );
        })}
      </ol>
    </section>
  );
}
