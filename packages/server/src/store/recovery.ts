import type { SessionRecord, SessionState } from "../domain/records.js";
import type { Db } from "./schema.js";
import { casSessionState } from "./sessions-repo.js";
import { defaultReason, lastTurnOf } from "../domain/turn-outcome.js";

/**
 * The states a crash can leave a session in that recovery changes. `waiting_for_input` needs no
 * change, and is not read: it is where most sessions of a long history rest (start-up
 * must not grow with history; `sessions_recover_ix` of migration 006 serves this query).
 */
const INTERRUPTED: readonly SessionState[] = ["starting", "running"];

/**
 * SES-6 start-up recovery for one runner; the caller runs it inside one transaction.
 * - `starting` sessions whose environment is not `ready` were interrupted mid-launch →
 *   `failed` with a durable `launch_interrupted` error (SES-8);
 * - every other live session → `waiting_for_input` (nothing is relaunched by itself);
 * - `creating` environments → `failed`, materializer cleared, slot rows kept, so the next
 *   launch materializes again and reuses what was already persisted.
 * Only this runner's environments (ST-3), and sessions through them or with none.
 * Returns the sessions whose state changed.
 */
/** The sessions start-up recovery works on (exported for the EXPLAIN test of its index). */
export function interruptedSessionsQuery(db: Db, runnerId: string) {
  return db
    .selectFrom("sessions")
    .selectAll()
    .where("state", "in", INTERRUPTED)
    .where((eb) =>
      eb.or([
        eb("task_environment_id", "is", null),
        eb("task_environment_id", "in", eb.selectFrom("task_environments").select("id").where("runner_id", "=", runnerId)),
      ]),
    )
    .orderBy("created_at")
    .orderBy("id");
}

export async function recoverAfterRestart(db: Db, runnerId: string, now: string): Promise<SessionRecord[]> {
  const live = await interruptedSessionsQuery(db, runnerId).execute();
  // Only the environments those sessions use: never every environment of a long history.
  const envIds = [...new Set(live.map((s) => s.task_environment_id).filter((x): x is string => x !== null))];
  const envs = envIds.length === 0 ? [] : await db.selectFrom("task_environments").select(["id", "status"]).where("id", "in", envIds).execute();
  const envStatus = new Map(envs.map((e) => [e.id, e.status]));

  const changed: SessionRecord[] = [];
  for (const s of live) {
    const envReady = s.task_environment_id !== null && envStatus.get(s.task_environment_id) === "ready";
    let updated: SessionRecord | undefined;
    if (s.state === "starting" && !envReady) {
      updated = await casSessionState(
        db,
        s.id,
        ["starting"],
        "failed",
        { lastError: { code: "launch_interrupted", message: "The server stopped before the launch finished.", at: now } },
        now,
      );
    } else if (s.state !== "waiting_for_input") {
      // LIVE-2: a turn the stop cut is recorded as interrupted (a launch cut short has no turn).
      const patch = s.state === "running" ? { lastTurn: lastTurnOf("interrupted", now, { reason: defaultReason("interrupted") }) } : {};
      updated = await casSessionState(db, s.id, [s.state as SessionState], "waiting_for_input", patch, now);
    }
    if (updated) changed.push(updated);
  }

  await db
    .updateTable("task_environments")
    .set({ status: "failed", materializer_session_id: null, updated_at: now })
    .where("runner_id", "=", runnerId)
    .where("status", "=", "creating")
    .execute();
  return changed;
}
