import type { Selectable } from "kysely";
import type { ChecksState, PullRequestRecord, PullRequestState } from "../domain/review.js";
import { fromDbBool, toDbBool, type Ctx, type Db, type PullRequestsTable } from "./schema.js";

function toRecord(r: Selectable<PullRequestsTable>): PullRequestRecord {
  return {
    taskId: r.task_id,
    repositoryId: r.repository_id,
    provider: r.provider,
    number: Number(r.number),
    url: r.url,
    state: r.state as PullRequestState,
    draft: fromDbBool(r.draft),
    checks: r.checks as ChecksState,
    reviewDecision: r.review_decision,
    headCommit: r.head_commit,
    branch: r.branch,
    pushedCommit: r.pushed_commit,
    etags: r.etags ? (JSON.parse(r.etags) as Record<string, string>) : {},
    checkedAt: r.checked_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** Inserts or replaces the pull request of (task, repository). */
export async function upsertPullRequest({ db, dialect }: Ctx, p: PullRequestRecord): Promise<void> {
  const values = {
    provider: p.provider,
    number: p.number,
    url: p.url,
    state: p.state,
    draft: toDbBool(dialect, p.draft),
    checks: p.checks,
    review_decision: p.reviewDecision,
    head_commit: p.headCommit,
    branch: p.branch,
    pushed_commit: p.pushedCommit,
    etags: JSON.stringify(p.etags),
    checked_at: p.checkedAt,
    updated_at: p.updatedAt,
  };
  await db
    .insertInto("pull_requests")
    .values({ task_id: p.taskId, repository_id: p.repositoryId, created_at: p.createdAt, ...values })
    .onConflict((oc) => oc.columns(["task_id", "repository_id"]).doUpdateSet(values))
    .execute();
}

export async function getPullRequest(db: Db, taskId: string, repositoryId: string): Promise<PullRequestRecord | undefined> {
  const row = await db.selectFrom("pull_requests").selectAll().where("task_id", "=", taskId).where("repository_id", "=", repositoryId).executeTakeFirst();
  return row && toRecord(row);
}

export async function listPullRequests(db: Db, taskId?: string): Promise<PullRequestRecord[]> {
  let q = db.selectFrom("pull_requests").selectAll();
  if (taskId !== undefined) q = q.where("task_id", "=", taskId);
  return (await q.orderBy("created_at").execute()).map(toRecord);
}

/**
 * Writes a refreshed status only if the row is still the one that was read (`updatedAt`
 * compare-and-set): two refreshers never interleave their answers. undefined when it lost.
 */
export async function updatePullRequestIf({ db, dialect }: Ctx, p: PullRequestRecord, expectedUpdatedAt: string): Promise<PullRequestRecord | undefined> {
  const res = await db
    .updateTable("pull_requests")
    .set({
      state: p.state,
      draft: toDbBool(dialect, p.draft),
      checks: p.checks,
      review_decision: p.reviewDecision,
      head_commit: p.headCommit,
      pushed_commit: p.pushedCommit,
      etags: JSON.stringify(p.etags),
      checked_at: p.checkedAt,
      updated_at: p.updatedAt,
    })
    .where("task_id", "=", p.taskId)
    .where("repository_id", "=", p.repositoryId)
    .where("updated_at", "=", expectedUpdatedAt)
    .executeTakeFirst();
  if (Number(res.numUpdatedRows) === 0) return undefined;
  return getPullRequest(db, p.taskId, p.repositoryId);
}
