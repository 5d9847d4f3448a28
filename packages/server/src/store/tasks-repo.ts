import type { Selectable } from "kysely";
import type { TaskBudget } from "@grove/protocol";
import type { TaskRecord, TaskRepositoryRecord, TaskState } from "../domain/records.js";
import type { Ctx, Db, TaskRepositoriesTable, TasksTable } from "./schema.js";

export type TaskPatch = Partial<Pick<TaskRecord, "title" | "description" | "state" | "archivedAt">>;

export function toAttachment(r: Selectable<TaskRepositoriesTable>): TaskRepositoryRecord {
  return {
    repositoryId: r.repository_id,
    baseBranch: r.base_branch,
    checkoutBranch: r.checkout_branch,
    prNumber: r.pr_number,
    position: r.position,
  };
}

export function toRecord(t: Selectable<TasksTable>, repositories: TaskRepositoryRecord[]): TaskRecord {
  return {
    id: t.id,
    title: t.title,
    description: t.description,
    state: t.state as TaskState,
    dirName: t.dir_name,
    archivedAt: t.archived_at,
    // LIVE-5: only a trashed task carries it, so live records stay as they were.
    ...(t.deleted_at ? { deletedAt: t.deleted_at } : {}),
    ...(t.parent_id ? { parentId: t.parent_id } : {}),
    createdAt: t.created_at,
    updatedAt: t.updated_at,
    repositories,
    ...budgetOf(t),
  };
}

/** USE-2: the budget columns as `{budget}` when a limit is set. */
function budgetOf(t: Selectable<TasksTable>): { budget?: TaskBudget } {
  const cost = t.budget_cost ?? undefined;
  const tokens = t.budget_tokens === null || t.budget_tokens === undefined ? undefined : Number(t.budget_tokens);
  if (cost === undefined && tokens === undefined) return {};
  return { budget: { ...(cost !== undefined ? { cost } : {}), ...(tokens !== undefined ? { tokens } : {}) } };
}

/** Inserts the task row and its ordered attachments; the caller provides the transaction. */
export async function insertTask(db: Db, t: TaskRecord): Promise<void> {
  await db
    .insertInto("tasks")
    .values({
      id: t.id,
      title: t.title,
      description: t.description,
      state: t.state,
      dir_name: t.dirName,
      archived_at: t.archivedAt,
      deleted_at: null,
      parent_id: t.parentId ?? null,
      created_at: t.createdAt,
      updated_at: t.updatedAt,
    })
    .execute();
  if (t.repositories.length === 0) return;
  await db
    .insertInto("task_repositories")
    .values(
      t.repositories.map((r) => ({
        task_id: t.id,
        position: r.position,
        repository_id: r.repositoryId,
        base_branch: r.baseBranch,
        checkout_branch: r.checkoutBranch,
        pr_number: r.prNumber,
      })),
    )
    .execute();
}

/** A live task (LIVE-5: one in the trash is not found; `getTaskAnyState` sees it). */
export async function getTask(db: Db, id: string): Promise<TaskRecord | undefined> {
  const row = await db.selectFrom("tasks").selectAll().where("id", "=", id).where("deleted_at", "is", null).executeTakeFirst();
  if (!row) return undefined;
  const atts = await db.selectFrom("task_repositories").selectAll().where("task_id", "=", id).orderBy("position").execute();
  return toRecord(row, atts.map(toAttachment));
}

/** The task whether live or in the trash (LIVE-5: restore, purge). */
export async function getTaskAnyState(db: Db, id: string): Promise<TaskRecord | undefined> {
  const row = await db.selectFrom("tasks").selectAll().where("id", "=", id).executeTakeFirst();
  if (!row) return undefined;
  const atts = await db.selectFrom("task_repositories").selectAll().where("task_id", "=", id).orderBy("position").execute();
  return toRecord(row, atts.map(toAttachment));
}

/** Active (`archived: false`) or archived tasks, oldest first, with their attachments. */
export async function listTasks(db: Db, opts: { archived: boolean }): Promise<TaskRecord[]> {
  const tasks = await db
    .selectFrom("tasks")
    .selectAll()
    .where("archived_at", opts.archived ? "is not" : "is", null)
    .where("deleted_at", "is", null)
    .orderBy("created_at")
    .orderBy("id")
    .execute();
  // One query for all attachments (a join keeps it free of parameter-count limits).
  const atts = await db
    .selectFrom("task_repositories")
    .innerJoin("tasks", "tasks.id", "task_repositories.task_id")
    .selectAll("task_repositories")
    .where("tasks.archived_at", opts.archived ? "is not" : "is", null)
    .where("tasks.deleted_at", "is", null)
    .orderBy("task_repositories.position")
    .execute();
  const byTask = new Map<string, TaskRepositoryRecord[]>();
  for (const a of atts) {
    const list = byTask.get(a.task_id) ?? [];
    list.push(toAttachment(a));
    byTask.set(a.task_id, list);
  }
  return tasks.map((t) => toRecord(t, byTask.get(t.id) ?? []));
}

/** Applies the patch and bumps `updatedAt`; undefined when the task does not exist. */
export async function updateTask(db: Db, id: string, patch: TaskPatch, now: string): Promise<TaskRecord | undefined> {
  const res = await db
    .updateTable("tasks")
    .set({
      ...(patch.title !== undefined && { title: patch.title }),
      ...(patch.description !== undefined && { description: patch.description }),
      ...(patch.state !== undefined && { state: patch.state }),
      ...(patch.archivedAt !== undefined && { archived_at: patch.archivedAt }),
      updated_at: now,
    })
    .where("id", "=", id)
    .executeTakeFirst();
  if (Number(res.numUpdatedRows) === 0) return undefined;
  return getTask(db, id);
}

/**
 * Compare-and-set of the task state: `from → to` only while the row still holds `from` (a
 * derived state must never overwrite one a person set after it was read). Undefined when the
 * state changed meanwhile or the task is gone.
 */
export async function setTaskStateIf(db: Db, id: string, from: TaskState, to: TaskState, now: string): Promise<TaskRecord | undefined> {
  const res = await db.updateTable("tasks").set({ state: to, updated_at: now }).where("id", "=", id).where("state", "=", from).executeTakeFirst();
  if (Number(res.numUpdatedRows) === 0) return undefined;
  return getTask(db, id);
}

/** Deletes the task; attachments, environment (and its rows) and sessions cascade. */
export async function deleteTask(db: Db, id: string): Promise<void> {
  await db.deleteFrom("tasks").where("id", "=", id).execute();
}

/**
 * Locks the task row for the rest of the transaction and returns it (LC-2: the barrier
 * check and the insert it guards must not interleave with a cleanup reservation).
 * PostgreSQL: `SELECT … FOR UPDATE`. SQLite: the transaction already holds the database
 * write lock (BEGIN IMMEDIATE), so a plain read is enough.
 */
export async function lockTask({ db, dialect }: Ctx, id: string): Promise<Selectable<TasksTable> | undefined> {
  const q = db.selectFrom("tasks").selectAll().where("id", "=", id);
  return (dialect === "postgres" ? q.forUpdate() : q).executeTakeFirst();
}

/** LIVE-5: the tasks in the trash, most recently deleted first, with their attachments. */
export async function listTrash(db: Db): Promise<TaskRecord[]> {
  const rows = await db.selectFrom("tasks").selectAll().where("deleted_at", "is not", null).orderBy("deleted_at", "desc").orderBy("id").execute();
  const out: TaskRecord[] = [];
  for (const row of rows) {
    const atts = await db.selectFrom("task_repositories").selectAll().where("task_id", "=", row.id).orderBy("position").execute();
    out.push(toRecord(row, atts.map(toAttachment)));
  }
  return out;
}
