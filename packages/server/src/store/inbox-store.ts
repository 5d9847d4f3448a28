import type { Selectable } from "kysely";
import type { InboxItem, InboxKind } from "@grove/protocol";
import type { Db, InboxItemsTable } from "./schema.js";

/** An inbox item to raise: its cause key makes raising it twice a no-op. */
export interface NewInboxItem {
  id: string;
  kind: InboxKind;
  taskId: string;
  sessionId?: string | undefined;
  causeKey: string;
  title: string;
  detail?: string | undefined;
  createdAt: string;
}

/** The longest list `GET /inbox` answers (newest first). */
export const INBOX_LIST_LIMIT = 500;

function toItem(r: Selectable<InboxItemsTable>): InboxItem {
  return {
    id: r.id,
    kind: r.kind as InboxKind,
    taskId: r.task_id,
    ...(r.session_id ? { sessionId: r.session_id } : {}),
    title: r.title,
    ...(r.detail ? { detail: r.detail } : {}),
    state: r.state === "done" ? "done" : "open",
    ...(r.read_at ? { readAt: r.read_at } : {}),
    createdAt: r.created_at,
    ...(r.resolved_at ? { resolvedAt: r.resolved_at } : {}),
  };
}

/** LIVE-4 persistence of the attention inbox (migration 017). Reached as `store.inbox`. */
export class InboxStore {
  constructor(private readonly db: () => Db) {}

  /** Inserts the item unless its cause already raised one; the new item, or undefined. */
  async raise(n: NewInboxItem): Promise<InboxItem | undefined> {
    const row = await this.db()
      .insertInto("inbox_items")
      .values({
        id: n.id,
        kind: n.kind,
        task_id: n.taskId,
        session_id: n.sessionId ?? null,
        cause_key: n.causeKey,
        title: n.title,
        detail: n.detail ?? null,
        state: "open",
        read_at: null,
        created_at: n.createdAt,
        resolved_at: null,
      })
      .onConflict((oc) => oc.column("cause_key").doNothing())
      .returningAll()
      .executeTakeFirst();
    return row && toItem(row);
  }

  async get(id: string): Promise<InboxItem | undefined> {
    const row = await this.db().selectFrom("inbox_items").selectAll().where("id", "=", id).executeTakeFirst();
    return row && toItem(row);
  }

  /** Newest first; `open` only, or every item. */
  async list(state: "open" | "all"): Promise<InboxItem[]> {
    let q = this.db().selectFrom("inbox_items").selectAll();
    if (state === "open") q = q.where("state", "=", "open");
    const rows = await q.orderBy("created_at", "desc").orderBy("id", "desc").limit(INBOX_LIST_LIMIT).execute();
    return rows.map(toItem);
  }

  /** Compare-and-set open → done; undefined when it was done already (or does not exist). */
  async markDone(id: string, now: string): Promise<InboxItem | undefined> {
    const row = await this.db()
      .updateTable("inbox_items")
      .set({ state: "done", resolved_at: now })
      .where("id", "=", id)
      .where("state", "=", "open")
      .returningAll()
      .executeTakeFirst();
    return row && toItem(row);
  }

  /** The first read only (a later read keeps the first time); undefined when already read. */
  async markRead(id: string, now: string): Promise<InboxItem | undefined> {
    const row = await this.db()
      .updateTable("inbox_items")
      .set({ read_at: now })
      .where("id", "=", id)
      .where("read_at", "is", null)
      .returningAll()
      .executeTakeFirst();
    return row && toItem(row);
  }

  /** Resolves the open items of one cause (e.g. a permission request): the items done now. */
  /** The open items whose cause starts with `prefix` (a constant of Grove's own, no LIKE wildcards) are settled. */
  async resolveCausePrefix(prefix: string, now: string): Promise<InboxItem[]> {
    const rows = await this.db()
      .updateTable("inbox_items")
      .set({ state: "done", resolved_at: now })
      .where("cause_key", "like", `${prefix}%`)
      .where("state", "=", "open")
      .returningAll()
      .execute();
    return rows.map(toItem);
  }

  async resolveCause(causeKey: string, now: string): Promise<InboxItem[]> {
    const rows = await this.db()
      .updateTable("inbox_items")
      .set({ state: "done", resolved_at: now })
      .where("cause_key", "=", causeKey)
      .where("state", "=", "open")
      .returningAll()
      .execute();
    return rows.map(toItem);
  }

  /** Resolves a session's (or a task's) open items of these kinds: the items done now. */
  async resolveOf(scope: { sessionId: string } | { taskId: string }, kinds: readonly InboxKind[], now: string): Promise<InboxItem[]> {
    if (kinds.length === 0) return [];
    let q = this.db()
      .updateTable("inbox_items")
      .set({ state: "done", resolved_at: now })
      .where("state", "=", "open")
      .where("kind", "in", [...kinds]);
    q = "sessionId" in scope ? q.where("session_id", "=", scope.sessionId) : q.where("task_id", "=", scope.taskId);
    const rows = await q.returningAll().execute();
    return rows.map(toItem);
  }
}
