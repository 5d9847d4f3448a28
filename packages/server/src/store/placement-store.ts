import type { Db } from "./schema.js";

/** Issue 15 persistence for placement (migration 013). Reached as `store.placement`. */
export class PlacementStore {
  constructor(private readonly db: () => Db) {}

  async setTaskLabels(taskId: string, labels: string[]): Promise<void> {
    await this.db().insertInto("task_runner_labels").values({ task_id: taskId, labels: JSON.stringify(labels) }).execute();
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
}
