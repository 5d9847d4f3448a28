import type { AgentProcessRecord } from "../domain/records.js";
import type { Db } from "./schema.js";

/** Records (or replaces) the live agent process of a session. */
export async function upsertAgentProcess(db: Db, p: AgentProcessRecord): Promise<void> {
  await db
    .insertInto("agent_processes")
    .values({ session_id: p.sessionId, runner_id: p.runnerId, pid: p.pid, start_time: p.startTime, created_at: p.createdAt })
    .onConflict((oc) =>
      oc.column("session_id").doUpdateSet((eb) => ({
        runner_id: eb.ref("excluded.runner_id"),
        pid: eb.ref("excluded.pid"),
        start_time: eb.ref("excluded.start_time"),
        created_at: eb.ref("excluded.created_at"),
      })),
    )
    .execute();
}

/** Deletes the session's record; with `only`, only while it still names that process (compare-and-set). */
export async function deleteAgentProcess(db: Db, sessionId: string, only?: { pid: number; startTime: string }): Promise<void> {
  let q = db.deleteFrom("agent_processes").where("session_id", "=", sessionId);
  if (only) q = q.where("pid", "=", only.pid).where("start_time", "=", only.startTime);
  await q.execute();
}

export async function listAgentProcesses(db: Db, runnerId: string): Promise<AgentProcessRecord[]> {
  const rows = await db.selectFrom("agent_processes").selectAll().where("runner_id", "=", runnerId).orderBy("created_at").orderBy("session_id").execute();
  return rows.map((r) => ({ sessionId: r.session_id, runnerId: r.runner_id, pid: r.pid, startTime: r.start_time, createdAt: r.created_at }));
}

/**
 * The agent processes of these sessions, whichever runner started them. A task's worktrees live
 * on the host of the runner that holds its environment (ST-3), so an agent working in them runs
 * on that host too: its cleanup may stop it by pid and start time.
 */
export async function listAgentProcessesOfSessions(db: Db, sessionIds: readonly string[]): Promise<AgentProcessRecord[]> {
  if (sessionIds.length === 0) return [];
  const rows = await db
    .selectFrom("agent_processes")
    .selectAll()
    .where("session_id", "in", [...sessionIds])
    .orderBy("created_at")
    .orderBy("session_id")
    .execute();
  return rows.map((r) => ({ sessionId: r.session_id, runnerId: r.runner_id, pid: r.pid, startTime: r.start_time, createdAt: r.created_at }));
}
