import { sql, type Selectable } from "kysely";
import type { LastError, LastTurn, QueuedPrompt, SessionUsage } from "@grove/protocol";
import type { AgentState } from "../domain/agent-state.js";
import type { SessionRecord, SessionState } from "../domain/records.js";
import type { SessionSandbox } from "../domain/sandbox-profile.js";
import type { Db, SessionsTable } from "./schema.js";
import { roundCost } from "../domain/usage.js";

export function toSession(r: Selectable<SessionsTable>): SessionRecord {
  return {
    id: r.id,
    taskId: r.task_id,
    agent: r.agent,
    state: r.state as SessionState,
    taskEnvironmentId: r.task_environment_id,
    acpSessionId: r.acp_session_id,
    lastError: r.last_error === null ? null : (JSON.parse(r.last_error) as LastError),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    ...(r.agent_state ? { agentState: JSON.parse(r.agent_state) as AgentState } : {}),
    ...(r.last_turn ? { lastTurn: JSON.parse(r.last_turn) as LastTurn } : {}),
    sandbox: r.sandbox === "confined" ? "confined" : "unconfined",
    blockedConnections: Number(r.blocked_connections),
    ...usageOf(r),
    ...(r.queued_prompts ? { queued: JSON.parse(r.queued_prompts) as QueuedPrompt[] } : {}),
  };
}

/** USE-1: the usage columns as `{usage}` once anything was recorded. */
export function usageOf(r: Selectable<SessionsTable>): { usage?: SessionUsage } {
  const n = (x: number | string | null | undefined) => (x === null || x === undefined ? undefined : Number(x));
  const tokensIn = n(r.usage_tokens_in) ?? 0;
  const tokensOut = n(r.usage_tokens_out) ?? 0;
  const cacheRead = n(r.usage_cache_read) ?? 0;
  const cacheWrite = n(r.usage_cache_write) ?? 0;
  const contextUsed = n(r.usage_context_used);
  const contextWindow = n(r.usage_context_window);
  // Sums of many float additions: kept to the ledger's precision, so a session equals its roll-ups.
  const cost = roundCost(r.usage_cost ?? 0);
  if (tokensIn + tokensOut + cacheRead + cacheWrite === 0 && contextUsed === undefined && cost === 0 && r.usage_currency == null) return {};
  return {
    usage: {
      tokensIn,
      tokensOut,
      ...(cacheRead ? { cacheRead } : {}),
      ...(cacheWrite ? { cacheWrite } : {}),
      ...(contextUsed !== undefined ? { contextUsed } : {}),
      ...(contextWindow !== undefined ? { contextWindow } : {}),
      cost,
      currency: r.usage_currency ?? "USD",
      estimated: r.usage_estimated === 1,
    },
  };
}

export async function insertSession(db: Db, s: SessionRecord): Promise<void> {
  await db
    .insertInto("sessions")
    .values({
      id: s.id,
      task_id: s.taskId,
      agent: s.agent,
      state: s.state,
      task_environment_id: s.taskEnvironmentId,
      acp_session_id: s.acpSessionId,
      last_error: s.lastError === null ? null : JSON.stringify(s.lastError),
      created_at: s.createdAt,
      updated_at: s.updatedAt,
      sandbox: s.sandbox,
    })
    .execute();
}

/** SBX-3: how the session's agent runs now (a later start may differ: bwrap removed, profile changed). */
export async function setSessionSandbox(db: Db, id: string, sandbox: SessionSandbox): Promise<void> {
  await db.updateTable("sessions").set({ sandbox }).where("id", "=", id).execute();
}

/** SBX-2: one more refused connection, counted in the database (several proxies may count at once). */
export async function countBlockedConnection(db: Db, id: string): Promise<number> {
  await db.updateTable("sessions").set({ blocked_connections: sql<number>`blocked_connections + 1` }).where("id", "=", id).execute();
  const row = await db.selectFrom("sessions").select("blocked_connections").where("id", "=", id).executeTakeFirst();
  return Number(row?.blocked_connections ?? 0);
}

export async function getSession(db: Db, id: string): Promise<SessionRecord | undefined> {
  const row = await db.selectFrom("sessions").selectAll().where("id", "=", id).executeTakeFirst();
  return row && toSession(row);
}

export async function listSessions(db: Db, taskId: string): Promise<SessionRecord[]> {
  const rows = await db.selectFrom("sessions").selectAll().where("task_id", "=", taskId).orderBy("created_at").orderBy("id").execute();
  return rows.map(toSession);
}

/**
 * SES-1: `UPDATE … WHERE id = ? AND state IN (from)`. The caller names the states it
 * expects, so a session that moved on (or reached a terminal state) is never overwritten;
 * undefined means the CAS lost.
 */
export async function casSessionState(
  db: Db,
  id: string,
  from: readonly SessionState[],
  to: SessionState,
  patch: { lastError?: LastError | null; acpSessionId?: string | null; lastTurn?: LastTurn | null },
  now: string,
): Promise<SessionRecord | undefined> {
  if (from.length === 0) return undefined;
  const row = await db
    .updateTable("sessions")
    .set({
      state: to,
      ...(patch.lastError !== undefined && { last_error: patch.lastError === null ? null : JSON.stringify(patch.lastError) }),
      ...(patch.acpSessionId !== undefined && { acp_session_id: patch.acpSessionId }),
      ...(patch.lastTurn !== undefined && { last_turn: patch.lastTurn === null ? null : JSON.stringify(patch.lastTurn) }),
      updated_at: now,
    })
    .where("id", "=", id)
    .where("state", "in", from)
    .returningAll()
    .executeTakeFirst();
  return row && toSession(row);
}

/**
 * WEB-37: changes a session's queued follow-ups by compare-and-set on the queue as read (and,
 * with `whileIn`, on the session's state): `change` maps the current queue to the next one, or
 * to undefined to leave the row alone. Retried while another writer changed the queue between
 * the read and the write. Answers the updated record, or undefined when nothing was written
 * (the session is gone, left `whileIn`, or `change` declined).
 */
export async function changeQueuedPrompts(
  db: Db,
  id: string,
  change: (queue: QueuedPrompt[]) => QueuedPrompt[] | undefined,
  now: string,
  whileIn?: readonly SessionState[],
): Promise<SessionRecord | undefined> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const row = await db.selectFrom("sessions").select(["state", "queued_prompts"]).where("id", "=", id).executeTakeFirst();
    if (!row || (whileIn && !whileIn.includes(row.state as SessionState))) return undefined;
    const next = change(row.queued_prompts ? (JSON.parse(row.queued_prompts) as QueuedPrompt[]) : []);
    if (!next) return undefined;
    let q = db
      .updateTable("sessions")
      .set({ queued_prompts: next.length > 0 ? JSON.stringify(next) : null, updated_at: now })
      .where("id", "=", id);
    q = row.queued_prompts === null ? q.where("queued_prompts", "is", null) : q.where("queued_prompts", "=", row.queued_prompts);
    if (whileIn) q = q.where("state", "in", whileIn);
    const updated = await q.returningAll().executeTakeFirst();
    if (updated) return toSession(updated);
  }
  return undefined;
}

export async function setSessionAcpId(db: Db, id: string, acpSessionId: string, now: string): Promise<void> {
  await db.updateTable("sessions").set({ acp_session_id: acpSessionId, updated_at: now }).where("id", "=", id).execute();
}

/** SES-7: the session and its messages (cascade); the environment is untouched. */
export async function deleteSession(db: Db, id: string): Promise<void> {
  await db.deleteFrom("sessions").where("id", "=", id).execute();
}

/** AG-2: the agent's reported state of a session (only its own runner writes it). */
export async function setSessionAgentState(db: Db, id: string, state: AgentState): Promise<void> {
  await db
    .updateTable("sessions")
    .set({ agent_state: JSON.stringify(state) })
    .where("id", "=", id)
    .execute();
}

/** Ids of the sessions in one of `states` (start-up recovery reads which turns were running). */
export async function listSessionIdsInStates(db: Db, states: readonly SessionState[]): Promise<string[]> {
  if (states.length === 0) return [];
  const rows = await db
    .selectFrom("sessions")
    .select("id")
    .where("state", "in", [...states])
    .execute();
  return rows.map((r) => r.id);
}
