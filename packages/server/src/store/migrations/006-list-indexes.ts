import { sql, type Kysely } from "kysely";
import type { DB, StoreDialect } from "../schema.js";
import type { Migration } from "./migration.js";

/**
 * Lists that scale: an index for every filter and keyset order of the paged lists
 * (checked with EXPLAIN in test/store/list-indexes.test.ts), and the diff-stat cache the
 * board's task summaries read (never a git call per list).
 *
 * - tasks are paged by (created_at, id); the archived filter is a partial index on each side,
 *   the state filter leads its own index, the repository filter goes through
 *   task_repositories(repository_id, task_id);
 * - the text filter `q`: PostgreSQL a trigram GIN index over title and description (pg_trgm,
 *   created only where the extension is installable — otherwise the filter still works, as a
 *   scan); SQLite an FTS5 trigram table kept in step by triggers;
 * - sessions of a task and cleanup jobs are paged by (created_at, id); messages by seq, which
 *   001 already indexes per session.
 */
async function up(db: Kysely<DB>, dialect: StoreDialect): Promise<void> {
  const s = db.schema;
  await s.createIndex("tasks_active_order_ix").on("tasks").columns(["created_at", "id"]).where(sql.ref("archived_at"), "is", null).execute();
  await s.createIndex("tasks_archived_order_ix").on("tasks").columns(["created_at", "id"]).where(sql.ref("archived_at"), "is not", null).execute();
  await s.createIndex("tasks_state_order_ix").on("tasks").columns(["state", "created_at", "id"]).execute();
  await s.createIndex("task_repositories_repo_ix").on("task_repositories").columns(["repository_id", "task_id"]).execute();
  await s.createIndex("sessions_task_order_ix").on("sessions").columns(["task_id", "created_at", "id"]).execute();
  // Start-up recovery reads only interrupted sessions (store/recovery.ts), never the whole history.
  // Not partial: SQLite cannot prove that `state IN (?, ?)` with bound values implies an index's WHERE.
  await s.createIndex("sessions_recover_ix").on("sessions").column("state").execute();
  await s.createIndex("cleanup_jobs_order_ix").on("cleanup_jobs").columns(["created_at", "id"]).execute();
  await s.createIndex("cleanup_jobs_task_order_ix").on("cleanup_jobs").columns(["task_id", "created_at", "id"]).execute();

  await s
    .createTable("task_diff_stats")
    .addColumn("task_id", "text", (c) => c.primaryKey().references("tasks.id").onDelete("cascade"))
    .addColumn("files", "integer", (c) => c.notNull())
    .addColumn("additions", "integer", (c) => c.notNull())
    .addColumn("deletions", "integer", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();

  if (dialect === "postgres") {
    const { rows } = await sql<{ ok: number }>`SELECT 1 AS ok FROM pg_available_extensions WHERE name = 'pg_trgm'`.execute(db);
    if (rows.length > 0) {
      await sql`CREATE EXTENSION IF NOT EXISTS pg_trgm`.execute(db);
      // fastupdate off: a GIN pending list (inserts not yet merged) makes the planner price the index out.
      await sql`CREATE INDEX tasks_text_trgm_ix ON tasks USING gin ((title || ' ' || description) gin_trgm_ops) WITH (fastupdate = off)`.execute(db);
    }
    return;
  }
  // External-content FTS5 over tasks (rowid is the tasks table's own rowid).
  await sql`CREATE VIRTUAL TABLE tasks_text_fts USING fts5(title, description, content='tasks', content_rowid='rowid', tokenize='trigram')`.execute(db);
  await sql`INSERT INTO tasks_text_fts(rowid, title, description) SELECT rowid, title, description FROM tasks`.execute(db);
  await sql`CREATE TRIGGER tasks_text_fts_ai AFTER INSERT ON tasks BEGIN
    INSERT INTO tasks_text_fts(rowid, title, description) VALUES (new.rowid, new.title, new.description); END`.execute(db);
  await sql`CREATE TRIGGER tasks_text_fts_ad AFTER DELETE ON tasks BEGIN
    INSERT INTO tasks_text_fts(tasks_text_fts, rowid, title, description) VALUES ('delete', old.rowid, old.title, old.description); END`.execute(db);
  await sql`CREATE TRIGGER tasks_text_fts_au AFTER UPDATE OF title, description ON tasks BEGIN
    INSERT INTO tasks_text_fts(tasks_text_fts, rowid, title, description) VALUES ('delete', old.rowid, old.title, old.description);
    INSERT INTO tasks_text_fts(rowid, title, description) VALUES (new.rowid, new.title, new.description); END`.execute(db);
}

export const m006ListIndexes: Migration = { name: "006-list-indexes", up };
