import type { RunnerRecord } from "../domain/runner.js";
import { fromRow } from "./runners-repo.js";
import type { Db, RunnersTable } from "./schema.js";

/** A task with its environment's runner (null before one exists) and that runner's row. */
export interface TaskOwnerRow {
  taskId: string;
  runnerId: string | null;
  runner: RunnerRecord | undefined;
}

/** A runner row's columns read through a join on `runners as r` (fromRow's input). */
const RUNNER_COLUMNS = [
  "r.id",
  "r.host",
  "r.url",
  "r.labels",
  "r.max_agents",
  "r.live_agents",
  "r.version",
  "r.heartbeat_ms",
  "r.started_at",
  "r.last_seen_at",
  "r.stopped_at",
  "r.credential_key_id",
] as const;

/** Persistence for placement (migration 013). Reached as `store.placement`. */
export class PlacementStore {
  constructor(private readonly db: () => Db) {}

  async setTaskLabels(taskId: string, labels: string[]): Promise<void> {
    await this.db()
      .insertInto("task_runner_labels")
      .values({ task_id: taskId, labels: JSON.stringify(labels) })
      .execute();
  }

  /** The labels a task requires (empty: none). */
  async taskLabels(taskId: string): Promise<string[]> {
    const row = await this.db().selectFrom("task_runner_labels").select("labels").where("task_id", "=", taskId).executeTakeFirst();
    return row ? (JSON.parse(row.labels) as string[]) : [];
  }

  async setRepositoryRunner(repositoryId: string, runnerId: string): Promise<void> {
    await this.db().insertInto("repository_runners").values({ repository_id: repositoryId, runner_id: runnerId }).execute();
  }

  /** The registering runner of each of `ids` that has one (repositories older than migration 013 have none). */
  async repositoryRunners(ids: string[]): Promise<Map<string, string>> {
    if (ids.length === 0) return new Map();
    const rows = await this.db().selectFrom("repository_runners").selectAll().where("repository_id", "in", ids).execute();
    return new Map(rows.map((r) => [r.repository_id, r.runner_id]));
  }

  /**
   * Migration 014: for each of `ids` that has a stored credential, the id of the key that sealed
   * it (null: sealed before the migration, by the registering runner's key).
   */
  async credentialKeyIds(ids: string[]): Promise<Map<string, string | null>> {
    if (ids.length === 0) return new Map();
    const rows = await this.db().selectFrom("repository_credentials").select(["repository_id", "key_id"]).where("repository_id", "in", ids).execute();
    return new Map(rows.map((r) => [r.repository_id, r.key_id]));
  }

  /**
   * The forwarding seam's one read per request: the task (by id, or by one of its sessions),
   * its environment's runner and that runner's row, in one query. Undefined: no such task/session.
   */
  async owner(by: { taskId: string } | { sessionId: string }): Promise<TaskOwnerRow | undefined> {
    const cols = ["e.runner_id as env_runner", ...RUNNER_COLUMNS] as const;
    const row =
      "taskId" in by
        ? await this.db()
            .selectFrom("tasks as t")
            .leftJoin("task_environments as e", "e.task_id", "t.id")
            .leftJoin("runners as r", "r.id", "e.runner_id")
            .select(["t.id as task_id", ...cols])
            .where("t.id", "=", by.taskId)
            .executeTakeFirst()
        : await this.db()
            .selectFrom("sessions as s")
            .leftJoin("task_environments as e", "e.task_id", "s.task_id")
            .leftJoin("runners as r", "r.id", "e.runner_id")
            .select(["s.task_id as task_id", ...cols])
            .where("s.id", "=", by.sessionId)
            .executeTakeFirst();
    if (!row) return undefined;
    const { task_id, env_runner, ...runner } = row;
    return { taskId: task_id, runnerId: env_runner, runner: runner.id === null ? undefined : fromRow(runner as RunnersTable) };
  }

  /**
   * The environment runner of each of `taskIds` that has an environment, with that runner's row
   * (undefined when it has none): one indexed join per 500 tasks, whatever the page size, so a
   * list computes `runnerState` without a read per task.
   */
  async taskRunners(taskIds: readonly string[]): Promise<Map<string, { runnerId: string; runner: RunnerRecord | undefined }>> {
    const out = new Map<string, { runnerId: string; runner: RunnerRecord | undefined }>();
    for (let i = 0; i < taskIds.length; i += 500) {
      const rows = await this.db()
        .selectFrom("task_environments as e")
        .leftJoin("runners as r", "r.id", "e.runner_id")
        .select(["e.task_id", "e.runner_id as env_runner", ...RUNNER_COLUMNS])
        .where("e.task_id", "in", taskIds.slice(i, i + 500))
        .execute();
      for (const { task_id, env_runner, ...runner } of rows)
        out.set(task_id, { runnerId: env_runner, runner: runner.id === null ? undefined : fromRow(runner as RunnersTable) });
    }
    return out;
  }
}
