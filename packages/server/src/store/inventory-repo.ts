import type { EnvironmentRecord, EnvironmentRepoRecord } from "../domain/records.js";
import { toEnvRepo, toEnvironment } from "./environments-repo.js";
import type { Db } from "./schema.js";

/** One task as `grove doctor` audits it: where its directory is and which rows claim worktrees. */
export interface TaskInventory {
  taskId: string;
  dirName: string;
  archivedAt: string | null;
  environment: EnvironmentRecord | null;
  rows: EnvironmentRepoRecord[];
}

/** Every task with its environment and rows (tombstones included), oldest first. Read-only. */
export async function listTaskInventory(db: Db): Promise<TaskInventory[]> {
  const tasks = await db.selectFrom("tasks").select(["id", "dir_name", "archived_at", "deleted_at"]).orderBy("created_at").orderBy("id").execute();
  const envs = await db.selectFrom("task_environments").selectAll().execute();
  const byTask = new Map(envs.map((e) => [e.task_id, toEnvironment(e)]));
  // All rows in one query (grouped here, in each environment's order), not one query per
  // environment: start-up and doctor read this with thousands of tasks.
  const rowsByEnv = new Map<string, EnvironmentRepoRecord[]>();
  const allRows = await db
    .selectFrom("task_environment_repos")
    .selectAll()
    .orderBy("environment_id")
    .orderBy("position")
    .orderBy("created_at")
    .orderBy("id")
    .execute();
  for (const r of allRows) {
    const list = rowsByEnv.get(r.environment_id) ?? [];
    list.push(toEnvRepo(r));
    rowsByEnv.set(r.environment_id, list);
  }
  const out: TaskInventory[] = [];
  for (const t of tasks) {
    const environment = byTask.get(t.id) ?? null;
    out.push({
      taskId: t.id,
      dirName: t.dir_name,
      // LIVE-5: a task in the trash has its worktrees removed, exactly as an archived one.
      archivedAt: t.archived_at ?? t.deleted_at,
      environment,
      rows: environment ? (rowsByEnv.get(environment.id) ?? []) : [],
    });
  }
  return out;
}
