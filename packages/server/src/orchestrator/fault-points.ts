/**
 * The faults of this process. Module state, not a port: a crash test runs one server per
 * process (the point exits or hangs the whole process), and threading a test hook through every
 * use case's ports would widen them all for nothing.
 */
let armed: string | undefined;

/** CFG-1: called once at start-up with `Config.fault`; undefined disarms every point. */
export function armFaultPoints(spec: string | undefined): void {
  armed = spec;
}

/**
 * Fault injection for crash tests (SEC-4, LC-4), inert unless the server was started with
 * `GROVE_FAULT` (read once by config.ts, armed by app.ts): a comma-separated list of `<point>:<action>`, where action is `exit` (the
 * process exits at once with code 137, like a kill -9: no cleanup, no graceful shutdown) or
 * `hang` (the operation never continues, so a test can kill the process there).
 * `pr.after_create` (the provider answered 201 for a new pull request, Grove has not recorded it).
 *
 * Points: `archive.after_reserve` (job `prepared`, inventory not taken), `archive.after_snapshot`,
 * `archive.after_commit` (archive committed, job `pending`), `cleanup.after_claim` (job
 * `running`, nothing done yet). `archive.*` applies to every trigger (delete, reset too).
 * `launch.after_worktree_add` (a new worktree exists, its row is not yet persisted),
 * `launch.rollback_after_row_delete` (a failed launch's rollback removed a row, not yet its worktree).
 * `launch.after_sparse_add` (WT-11: a sparse worktree added with `--no-checkout`, its cone not yet checked out).
 * `workflow.after_claim` (a run `running`, nothing done), `workflow.after_plan` (a start's session
 * id, or send_checks' target session, recorded; nothing started or sent), `workflow.after_start` (the session created, the run not told),
 * `workflow.after_create` (a trigger's task created, its `create_task` run not yet done),
 * `workflow.after_issue_comment` (the comment on a provider issue posted, its run not yet done),
 * `workflow.after_prompt` (send_comments / send_checks: the prompt went out, the run not told),
 * `comments.after_prompt` (review comments' prompt went out, the comments not yet marked sent),
 * `workflow.after_command_start` (a `run` action's command started, the run not told),
 * `workflow.after_pr` (a `pr` action pushed and opened or updated, the run not told),
 * `workflow.after_archive` (WF-2.17: the task's archive job committed, its run not told).
 * WT-10 pool: `pool.after_claim` (a pooled worktree moved to the slot, no branch yet),
 * `pool.after_branch` (branch created, not checked out), `pool.after_checkout` (on the branch,
 * markers not yet dropped), `pool.after_refill_add` (a fill's worktree exists, not yet marked ready).
 * WEB-37: `queue.after_send` (a queued prompt claimed and its turn started; the bookkeeping after
 * the send not yet done).
 */
export function faultPoint(point: string): Promise<void> {
  const spec = armed;
  if (!spec) return Promise.resolve();
  for (const entry of spec.split(",")) {
    const [name, action] = entry.trim().split(":");
    if (name !== point) continue;
    if (action === "exit") process.exit(137);
    if (action === "hang") return new Promise<void>(() => undefined);
  }
  return Promise.resolve();
}
