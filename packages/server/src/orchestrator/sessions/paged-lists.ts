import type { CleanupJob, Message, Page, Session } from "@grove/protocol";
import { cleanupJobView } from "../../domain/cleanup-job.js";
import { decodeCursor, decodeSeqCursor, encodeCursor, encodeSeqCursor } from "../../domain/cursor.js";
import { messageView, sessionView } from "../../domain/views.js";
import type { Deps } from "../context.js";
import { getSessionOr404 } from "./session-ops.js";
import { getTaskOr404 } from "../tasks/tasks.js";

function nextKey(more: boolean, last: { createdAt: string; id: string } | undefined): string | null {
  return more && last ? encodeCursor({ at: last.createdAt, id: last.id }) : null;
}

/** `GET /tasks/:id/sessions?limit=&cursor=`: oldest first, keyset on (createdAt, id). */
export async function sessionPage(deps: Pick<Deps, "store">, taskId: string, limit: number, cursor: string | undefined): Promise<Page<Session>> {
  await getTaskOr404(deps, taskId);
  const { rows, more } = await deps.store.listSessionPage(taskId, { limit, after: cursor === undefined ? undefined : decodeCursor(cursor) });
  return { items: rows.map(sessionView), nextCursor: nextKey(more, rows.at(-1)) };
}

/** `GET /cleanup-jobs?limit=&cursor=[&taskId=]`: oldest first, keyset on (createdAt, id). */
export async function cleanupJobPage(
  deps: Pick<Deps, "store">,
  taskId: string | undefined,
  limit: number,
  cursor: string | undefined,
): Promise<Page<CleanupJob>> {
  const { rows, more } = await deps.store.listCleanupJobPage(taskId, { limit, after: cursor === undefined ? undefined : decodeCursor(cursor) });
  return { items: rows.map(cleanupJobView), nextCursor: nextKey(more, rows.at(-1)) };
}

/**
 * `GET /sessions/:id/messages?limit=&before=`: the newest `limit` messages before the cursor,
 * returned oldest first (as the plain list is); `nextCursor` continues towards older ones.
 */
export async function messagePage(deps: Pick<Deps, "store">, sessionId: string, limit: number, before: string | undefined): Promise<Page<Message>> {
  await getSessionOr404(deps, sessionId);
  const page = await deps.store.listMessagePage(sessionId, { limit, before: before === undefined ? undefined : decodeSeqCursor(before) });
  return { items: page.rows.map(messageView), nextCursor: page.more && page.oldestSeq !== null ? encodeSeqCursor(page.oldestSeq) : null };
}
