import type { RunnerRecord } from "../domain/runner.js";
import type { Db, RunnersTable } from "./schema.js";

export function fromRow(r: RunnersTable): RunnerRecord {
  return {
    id: r.id,
    host: r.host,
    url: r.url,
    labels: JSON.parse(r.labels) as string[],
    maxAgents: r.max_agents,
    liveAgents: r.live_agents,
    version: r.version,
    heartbeatMs: r.heartbeat_ms,
    startedAt: r.started_at,
    lastSeenAt: r.last_seen_at,
    stoppedAt: r.stopped_at,
    credentialKeyId: r.credential_key_id,
  };
}

/** Inserts or replaces the runner's row at start-up (a restart re-announces everything). */
export async function registerRunner(db: Db, r: RunnerRecord): Promise<void> {
  const row = {
    host: r.host,
    url: r.url,
    labels: JSON.stringify(r.labels),
    max_agents: r.maxAgents,
    live_agents: r.liveAgents,
    version: r.version,
    heartbeat_ms: r.heartbeatMs,
    started_at: r.startedAt,
    last_seen_at: r.lastSeenAt,
    stopped_at: r.stoppedAt,
    credential_key_id: r.credentialKeyId,
  };
  await db
    .insertInto("runners")
    .values({ id: r.id, ...row })
    .onConflict((oc) => oc.column("id").doUpdateSet(row))
    .execute();
}

/**
 * One heartbeat: moves `last_seen_at` forward only (compare-and-set on the timestamp, so a
 * delayed write of an older beat never moves it back) and records the live load.
 * Returns false when the row is gone or stopped (then the runner re-registers).
 */
export async function heartbeatRunner(db: Db, id: string, now: string, liveAgents: number): Promise<boolean> {
  const r = await db
    .updateTable("runners")
    .set({ last_seen_at: now, live_agents: liveAgents })
    .where("id", "=", id)
    .where("stopped_at", "is", null)
    .where("last_seen_at", "<=", now)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** A graceful stop: the runner shows offline at once instead of after the bound. */
export async function stopRunner(db: Db, id: string, now: string): Promise<void> {
  await db.updateTable("runners").set({ stopped_at: now, live_agents: 0 }).where("id", "=", id).execute();
}

export async function getRunner(db: Db, id: string): Promise<RunnerRecord | undefined> {
  const row = await db.selectFrom("runners").selectAll().where("id", "=", id).executeTakeFirst();
  return row ? fromRow(row) : undefined;
}

/** Every registered runner, by id. */
export async function listRunners(db: Db): Promise<RunnerRecord[]> {
  return (await db.selectFrom("runners").selectAll().orderBy("id").execute()).map(fromRow);
}
