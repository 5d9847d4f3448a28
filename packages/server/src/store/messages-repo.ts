import type { Selectable } from "kysely";
import type { MessageRecord, MessageRole } from "../domain/records.js";
import type { Db, MessagesTable } from "./schema.js";
import { decodeText, encodeText } from "./text-codec.js";

export function toMessage(r: Selectable<MessagesTable>): MessageRecord {
  return {
    id: r.id,
    sessionId: r.session_id,
    role: r.role as MessageRole,
    text: decodeText(r.text),
    data: r.data === null ? undefined : (JSON.parse(r.data) as unknown),
    createdAt: r.created_at,
  };
}

/** `undefined` is stored as SQL NULL; any other value (null included) as JSON text. */
function dataColumn(data: unknown): string | null {
  return data === undefined ? null : JSON.stringify(data);
}

export async function insertMessage(db: Db, m: MessageRecord): Promise<void> {
  await db
    .insertInto("messages")
    .values({ id: m.id, session_id: m.sessionId, role: m.role, text: encodeText(m.text), data: dataColumn(m.data), created_at: m.createdAt })
    .execute();
}

/** Streaming chunks grow a message in place; its position (seq) never changes. */
export async function updateMessage(db: Db, id: string, patch: { text?: string; data?: unknown }): Promise<void> {
  const hasData = Object.hasOwn(patch, "data");
  if (patch.text === undefined && !hasData) return;
  await db
    .updateTable("messages")
    .set({
      ...(patch.text !== undefined && { text: encodeText(patch.text) }),
      ...(hasData && { data: dataColumn(patch.data) }),
    })
    .where("id", "=", id)
    .execute();
}

/** Oldest first, by the database-assigned sequence. */
export async function listMessages(db: Db, sessionId: string): Promise<MessageRecord[]> {
  const rows = await db.selectFrom("messages").selectAll().where("session_id", "=", sessionId).orderBy("seq").execute();
  return rows.map(toMessage);
}

/** The session's `tool` messages, oldest first: what start-up recovery closes (AG-1), not the whole transcript. */
export async function listToolMessages(db: Db, sessionId: string): Promise<MessageRecord[]> {
  const rows = await db.selectFrom("messages").selectAll().where("session_id", "=", sessionId).where("role", "=", "tool").orderBy("seq").execute();
  return rows.map(toMessage);
}
