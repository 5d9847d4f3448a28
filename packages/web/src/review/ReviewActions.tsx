/**
 * The landing actions of a task (API): send open comments to a session, commit the
 * uncommitted changes, update from base, merge into the base, create a pull request. Each is
 * shown only when this server offers its route.
 */
import type { MergeResult, Session, UpdateResult } from "@grove/protocol";
import type { Operation } from "../api/human-errors.js";
import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { call } from "../api/client.js";
import { keys } from "../api/keys.js";
import type { Comment as ReviewComment, PullRequest } from "@grove/protocol";
import { ErrorBox } from "../ui/ErrorBox.js";
import { Field } from "../ui/Field.js";
import { useAction } from "../ui/use-action.js";

/** What a merge would land, per repository: the task branch, its base and how far it is ahead. */
export interface Landing {
  name: string;
  branch: string;
  baseBranch: string;
  ahead: number;
}

const STRATEGIES = [
  { value: "merge", label: "Merge commit" },
  { value: "squash", label: "Squash into one commit" },
  { value: "fast_forward", label: "Fast-forward only" },
] as const;

const commits = (n: number) => `${n} commit${n === 1 ? "" : "s"}`;

/** The merge question in words: how many commits of which branch land on which base. */
function mergeQuestion(landing: Landing[]): { question: string; lines: string[]; base: string | undefined } {
  const moving = landing.filter((l) => l.ahead > 0);
  const bases = [...new Set(moving.map((l) => l.baseBranch))];
  if (moving.length === 1) {
    const l = moving[0]!;
    return { question: `Merge ${commits(l.ahead)} of ${l.branch} into ${l.baseBranch}?`, lines: [], base: l.baseBranch };
  }
  return {
    question: "Merge this task's commits in each repository?",
    lines: moving.map((l) => `${l.name}: ${commits(l.ahead)} of ${l.branch} into ${l.baseBranch}`),
    base: bases.length === 1 ? bases[0] : undefined,
  };
}

export function ReviewActions({
  taskId,
  caps,
  comments,
  sessions,
  pullRequests,
  hasUncommitted,
  hasFiles,
  landing = [],
  taskState,
  canOpenPr,
}: {
  canOpenPr?: boolean | undefined;
  taskState?: string | undefined;
  taskId: string;
  caps: Set<string>;
  comments: ReviewComment[];
  sessions: Session[];
  pullRequests: PullRequest[];
  hasUncommitted: boolean;
  hasFiles: boolean;
  landing?: Landing[];
}) {
  const qc = useQueryClient();
  const action = useAction();
  const [message, setMessage] = useState("");
  const [extra, setExtra] = useState("");
  const [result, setResult] = useState("");
  // Which operation the shown error answered: its words and fix depend on it (RV-7).
  const [op, setOp] = useState<Operation | undefined>(undefined);
  // Merge asks first, with the strategy; afterwards the base holds the branch (nothing ahead).
  const [askMerge, setAskMerge] = useState(false);
  const mergeButton = useRef<HTMLButtonElement>(null);
  const confirmButton = useRef<HTMLButtonElement>(null);
  // WEB-36: the confirmation takes the focus (Merge… is disabled while it is open, which would
  // drop the focus to the page); Cancel or Escape gives it back to Merge….
  useEffect(() => {
    if (askMerge) confirmButton.current?.focus();
  }, [askMerge]);
  const cancelMerge = () => {
    setAskMerge(false);
    setTimeout(() => mergeButton.current?.focus());
  };
  const [strategy, setStrategy] = useState<(typeof STRATEGIES)[number]["value"]>("merge");
  const nothingToMerge = landing.length > 0 && landing.every((l) => l.ahead === 0);
  const ask = mergeQuestion(landing);
  const open = comments.filter((c) => c.state === "open");
  const offered = [
    "POST /tasks/{id}/comments",
    "POST /tasks/{id}/commit",
    "POST /tasks/{id}/update-from-base",
    "POST /tasks/{id}/merge",
    "POST /tasks/{id}/pull-requests",
  ].some((op) => caps.has(op));
  const target = [...sessions].sort((a, b) => b.createdAt.localeCompare(a.createdAt))[0];
  const busyTurn = target ? target.state === "running" || target.state === "starting" : false;
  const refresh = () => {
    void qc.invalidateQueries({ queryKey: keys.changes(taskId) });
    void qc.invalidateQueries({ queryKey: ["diff", taskId] });
    void qc.invalidateQueries({ queryKey: keys.comments(taskId) });
    void qc.invalidateQueries({ queryKey: keys.conflicts(taskId) });
  };
  const run = (what: string | ((r: unknown) => string), fn: () => Promise<unknown>, operation?: Operation) =>
    void action.run(async () => {
      setResult("");
      setOp(operation);
      try {
        const r = await fn();
        setResult(typeof what === "string" ? what : what(r));
      } finally {
        refresh();
      }
    });
  const updated = (r: unknown) => {
    const outcomes = (r as UpdateResult).results.map((x) => x.outcome);
    if (outcomes.includes("conflicts")) return "The update stopped on conflicts: they are listed above.";
    return outcomes.every((o) => o === "up_to_date") ? "Already up to date with the base." : "Updated from base.";
  };
  const update = (body: { autostash?: boolean; keepConflicts?: boolean }) =>
    run(updated, () => call("updateTaskFromBase", { params: { id: taskId }, body }), "update_from_base");

  if (!offered) return null;
  const mergeWhy = hasUncommitted
    ? "Commit the uncommitted changes first."
    : nothingToMerge
      ? "The base already holds every commit of the branch."
      : landing.length === 0
        ? "Reading the branch…"
        : null;
  return (
    <section className="card review-actions" aria-label="Review actions">
      {/* WEB-49.7: the section is named by what its buttons do (Commit, Merge…), never "Land". */}
      <h2>Commit and merge</h2>
      {caps.has("POST /tasks/{id}/comments") ? (
        <form
          className="send-comments"
          aria-label="Send comments"
          onSubmit={(e) => {
            e.preventDefault();
            run(`Sent ${open.length} comment(s) to the agent.`, () =>
              call("promptSession", {
                params: { id: target!.id },
                body: extra.trim() ? { commentIds: open.map((c) => c.id), prompt: extra } : { commentIds: open.map((c) => c.id) },
              }).then(() => setExtra("")),
            );
          }}
        >
          <Field label="Extra instructions with the comments (optional)">
            <textarea rows={2} value={extra} onChange={(e) => setExtra(e.target.value)} />
          </Field>
          <div className="actions">
            <button type="submit" disabled={!target || open.length === 0 || busyTurn || action.busy}>
              Send {open.length} comment{open.length === 1 ? "" : "s"} to the agent
            </button>
            {!target ? (
              <span className="muted">Start a session to send comments.</span>
            ) : busyTurn ? (
              <span className="muted">The agent is working; send when its turn ends.</span>
            ) : open.length === 0 && hasFiles ? (
              <span className="muted">Click a line number in a diff below to comment on that line.</span>
            ) : null}
          </div>
        </form>
      ) : null}
      {caps.has("POST /tasks/{id}/commit") ? (
        <form
          className="commit-form"
          aria-label="Commit"
          onSubmit={(e) => {
            e.preventDefault();
            run("Committed.", () => call("commitTaskChanges", { params: { id: taskId }, body: { message } }).then(() => setMessage("")), "commit");
          }}
        >
          <Field label="Commit message">
            <input value={message} onChange={(e) => setMessage(e.target.value)} autoComplete="off" />
          </Field>
          <button type="submit" disabled={!hasUncommitted || !message.trim() || action.busy}>
            Commit
          </button>
        </form>
      ) : null}
      <div className="actions">
        {caps.has("POST /tasks/{id}/update-from-base") ? (
          <button type="button" className="secondary" disabled={action.busy} onClick={() => update({})}>
            Update from base
          </button>
        ) : null}
        {caps.has("POST /tasks/{id}/merge") ? (
          <button
            ref={mergeButton}
            type="button"
            className="secondary"
            disabled={action.busy || hasUncommitted || nothingToMerge || askMerge || landing.length === 0}
            aria-describedby={mergeWhy ? "merge-why" : undefined}
            onClick={() => setAskMerge(true)}
          >
            {/* Uncommitted work is something to merge once committed: the button says Merge…, its why says commit first. */}
            {nothingToMerge && !hasUncommitted ? "Nothing to merge" : "Merge…"}
          </button>
        ) : null}
        {/* Why Merge is unavailable, as text beside it: a hover tooltip never reaches a finger. */}
        {caps.has("POST /tasks/{id}/merge") && mergeWhy ? (
          <span className="muted merge-why" id="merge-why">
            {mergeWhy}
          </span>
        ) : null}
        {caps.has("POST /tasks/{id}/pull-requests") && canOpenPr === true ? (
          <button
            type="button"
            className="secondary"
            disabled={action.busy}
            onClick={() =>
              run("Pull request created.", () =>
                call("createPullRequests", { params: { id: taskId }, body: {} }).then(() => qc.invalidateQueries({ queryKey: keys.pullRequests(taskId) })),
              )
            }
          >
            Create PR
          </button>
        ) : null}
      </div>
      {caps.has("POST /tasks/{id}/pull-requests") && canOpenPr === false ? (
        <p className="muted no-provider">
          Pull requests need a repository added from GitHub or GitLab (by its URL); this task's repositories are local, so Merge brings the work into the base
          branch.
        </p>
      ) : null}
      {askMerge ? (
        <div
          className="confirm calm"
          role="alertdialog"
          aria-label="Confirm merge"
          onKeyDown={(e) => {
            if (e.key === "Escape") cancelMerge();
          }}
        >
          <p>
            <strong>{ask.question}</strong>
          </p>
          {ask.lines.length > 0 ? (
            <ul>
              {ask.lines.map((l) => (
                <li key={l}>{l}</li>
              ))}
            </ul>
          ) : null}
          <p className="muted">{`${ask.base ?? "The base branch"} then holds this task's work. If you have ${ask.base ?? "it"} checked out with no uncommitted changes, your checkout is brought along.`}</p>
          <label>
            How{" "}
            <select name="strategy" value={strategy} onChange={(e) => setStrategy(e.target.value as typeof strategy)}>
              {STRATEGIES.map((s) => (
                <option key={s.value} value={s.value}>
                  {s.label}
                </option>
              ))}
            </select>
          </label>
          <div className="actions">
            <button
              ref={confirmButton}
              type="button"
              onClick={() => {
                setAskMerge(false);
                run(
                  (r) => `Merged into ${(r as MergeResult).results.map((x) => `${x.baseBranch} at ${x.commit.slice(0, 7)}`).join(", ")}.`,
                  () =>
                    call("mergeTaskIntoBase", { params: { id: taskId }, body: { strategy } }).then(
                      async (r) => (await qc.invalidateQueries({ queryKey: keys.task(taskId) }), r),
                    ),
                  "merge",
                );
              }}
            >
              {ask.base ? `Merge into ${ask.base}` : "Merge"}
            </button>
            <button type="button" className="secondary" onClick={cancelMerge}>
              Cancel
            </button>
          </div>
        </div>
      ) : null}
      {nothingToMerge && taskState === "done" && !askMerge ? (
        <p className="merged-state" data-merged="true">
          Merged: {landing.map((l) => `${l.name} ${l.branch} is in ${l.baseBranch}`).join("; ")}.
        </p>
      ) : null}
      {pullRequests.map((pr) => (
        <p key={pr.repositoryId + pr.number} className="pr-status">
          <a href={pr.url} target="_blank" rel="noreferrer">
            PR #{pr.number}
          </a>{" "}
          {pr.state}
          {pr.draft ? " (draft)" : ""} · checks {pr.checks}
        </p>
      ))}
      <ErrorBox
        error={action.error}
        operation={op}
        fixes={{ autostash: () => update({ autostash: true }), keep_conflicts: () => update({ keepConflicts: true }) }}
      />
      {result ? (
        <p className="notice" role="status">
          {result}
        </p>
      ) : null}
    </section>
  );
}
