import type { Db } from "./schema.js";

/** MCP-2: one task's latest progress report. */
export interface TaskProgress {
  sessionId: string;
  status: string;
  plan: { content: string; status: "pending" | "in_progress" | "completed" }[] | null;
  updatedAt: string;
}

/** Persistence of what agents report through Grove's MCP server (migration 019). Reached as `store.mcp`. */
export class McpStore {
  constructor(private readonly db: () => Db) {}

  /** Replaces the task's progress report (the latest one wins). */
  async setProgress(taskId: string, p: TaskProgress): Promise<void> {
    const row = { session_id: p.sessionId, status: p.status, plan: p.plan ? JSON.stringify(p.plan) : null, updated_at: p.updatedAt };
    await this.db()
      .insertInto("task_progress")
      .values({ task_id: taskId, ...row })
      .onConflict((oc) => oc.column("task_id").doUpdateSet(row))
      .execute();
  }

  async getProgress(taskId: string): Promise<TaskProgress | undefined> {
    const r = await this.db().selectFrom("task_progress").selectAll().where("task_id", "=", taskId).executeTakeFirst();
    if (!r) return undefined;
    return { sessionId: r.session_id, status: r.status, plan: r.plan ? (JSON.parse(r.plan) as TaskProgress["plan"]) : null, updatedAt: r.updated_at };
  }
}
