import type { Selectable } from "kysely";
import type { CommentRecord, CommentState } from "../domain/review.js";
import type { Db, ReviewCommentsTable } from "./schema.js";

function toRecord(r: Selectable<ReviewCommentsTable>): CommentRecord {
  return {
    id: r.id,
    taskId: r.task_id,
    repositoryId: r.repository_id,
    path: r.path,
    line: Number(r.line),
    side: r.side as CommentRecord["side"],
    body: r.body,
    state: r.state as CommentState,
    commit: r.commit_sha,
    lineText: r.line_text,
    sessionId: r.session_id,
    sentTurn: r.sent_turn === null ? null : Number(r.sent_turn),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

export async function insertComment(db: Db, c: CommentRecord): Promise<void> {
  await db
    .insertInto("review_comments")
    .values({
      id: c.id,
      task_id: c.taskId,
      repository_id: c.repositoryId,
      path: c.path,
      line: c.line,
      side: c.side,
      body: c.body,
      state: c.state,
      commit_sha: c.commit,
      line_text: c.lineText,
      session_id: c.sessionId,
      sent_turn: c.sentTurn,
      created_at: c.createdAt,
      updated_at: c.updatedAt,
    })
    .execute();
}

export async function getComment(db: Db, id: string): Promise<CommentRecord | undefined> {
  const row = await db.selectFrom("review_comments").selectAll().where("id", "=", id).executeTakeFirst();
  return row && toRecord(row);
}

/** Oldest first. */
export async function listComments(db: Db, taskId: string): Promise<CommentRecord[]> {
  const rows = await db.selectFrom("review_comments").selectAll().where("task_id", "=", taskId).orderBy("created_at").orderBy("id").execute();
  return rows.map(toRecord);
}

/**
 * Edits body and/or state only while the comment is still in one of `from` (compare-and-set
 * against a concurrent send or edit); undefined when it is gone or in another state.
 */
export async function updateCommentIf(
  db: Db,
  id: string,
  from: readonly CommentState[],
  patch: { body?: string; state?: CommentState; sessionId?: string; sentTurn?: number },
  now: string,
): Promise<CommentRecord | undefined> {
  const res = await db
    .updateTable("review_comments")
    .set({
      ...(patch.body !== undefined && { body: patch.body }),
      ...(patch.state !== undefined && { state: patch.state }),
      ...(patch.sessionId !== undefined && { session_id: patch.sessionId }),
      ...(patch.sentTurn !== undefined && { sent_turn: patch.sentTurn }),
      updated_at: now,
    })
    .where("id", "=", id)
    .where("state", "in", [...from])
    .executeTakeFirst();
  if (Number(res.numUpdatedRows) === 0) return undefined;
  return getComment(db, id);
}

/** True when a row was deleted. */
export async function deleteComment(db: Db, id: string): Promise<boolean> {
  const res = await db.deleteFrom("review_comments").where("id", "=", id).executeTakeFirst();
  return Number(res.numDeletedRows) > 0;
}
