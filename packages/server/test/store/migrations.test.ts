import { sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { MIGRATIONS, type Migration } from "../../src/store/migrations/index.js";
import { listAppliedMigrations, migrateToLatest } from "../../src/store/migrator.js";
import { openDatabase, openStore } from "../../src/store/open.js";
import { DATABASES, freshDatabase } from "../fixture/db.js";
import { seedTask } from "./records.js";

const EXPECTED_TABLES = [
  "agent_budgets",
  "agent_processes",
  "agent_settings",
  "cleanup_jobs",
  "grove_migrations",
  "inbox_items",
  "messages",
  "person_settings",
  "pull_requests",
  "questions",
  "repositories",
  "repository_credentials",
  "repository_runners",
  "review_comments",
  "runners",
  "sessions",
  "task_diff_stats",
  "task_environment_repos",
  "task_environments",
  "task_progress",
  "task_repositories",
  "task_runner_labels",
  "tasks",
  "usage_days",
  "usage_records",
  "usage_settings",
  "workflow_entries",
  "workflow_runs",
  "workflow_task_stops",
  "workflows",
];

/** Creates a table, then fails: a transactional migration must leave neither behind. */
const broken: Migration = {
  name: "999-broken",
  async up(db) {
    await db.schema.createTable("half_done").addColumn("id", "text").execute();
    await sql`insert into no_such_table values (1)`.execute(db);
  },
};

describe.each(DATABASES)("store migrations on %s", (kind) => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  async function fresh() {
    const f = await freshDatabase(kind);
    cleanups.push(f.drop);
    const opts = { home: f.home, ...(f.databaseUrl !== undefined && { databaseUrl: f.databaseUrl }) };
    return opts;
  }

  async function tablesOf(opts: { home: string; databaseUrl?: string }): Promise<string[]> {
    const { db } = openDatabase(opts);
    try {
      // SQLite's full-text index of task texts (006) is a virtual table with shadow tables: not schema tables.
      return (await db.introspection.getTables())
        .map((t) => t.name)
        .filter((n) => !n.startsWith("tasks_text_fts"))
        .sort();
    } finally {
      await db.destroy();
    }
  }

  it("ST-1/ST-2 a fresh database migrates to the full schema", async () => {
    const opts = await fresh();
    const store = await openStore(opts);
    expect(store.dialect).toBe(kind);
    await store.close();
    expect(await tablesOf(opts)).toEqual(EXPECTED_TABLES);
  });

  // SQLite only: these pragmas do not exist on PostgreSQL.
  if (kind === "sqlite")
    it("ST-1 SQLite runs in WAL mode with a busy timeout and foreign keys on", async () => {
      const opts = await fresh();
      const { db } = openDatabase(opts);
      try {
        const mode = await sql<{ journal_mode: string }>`pragma journal_mode`.execute(db);
        const fk = await sql<{ foreign_keys: number }>`pragma foreign_keys`.execute(db);
        const busy = await sql<{ timeout: number }>`pragma busy_timeout`.execute(db);
        expect(mode.rows[0]?.journal_mode).toBe("wal");
        expect(fk.rows[0]?.foreign_keys).toBe(1);
        expect(busy.rows[0]?.timeout).toBe(5000);
      } finally {
        await db.destroy();
      }
    });

  it("ST-2 re-opening is idempotent and keeps the data", async () => {
    const opts = await fresh();
    const first = await openStore(opts);
    const { task } = await seedTask(first);
    await first.close();

    const { db, dialect } = openDatabase(opts);
    try {
      expect(await migrateToLatest(db, dialect, MIGRATIONS)).toEqual([]);
      // The applied set, listed by name (migrations of parallel work are appended out of name order).
      expect(await listAppliedMigrations(db, dialect)).toEqual(MIGRATIONS.map((m) => m.name).sort());
    } finally {
      await db.destroy();
    }
    const again = await openStore(opts);
    expect((await again.getTask(task.id))?.title).toBe(task.title);
    await again.close();
  });

  it("ST-2 a failing migration throws 'migration failed:' and leaves the schema as it was", async () => {
    const opts = await fresh();
    const store = await openStore(opts);
    await seedTask(store);
    await store.close();
    const before = await tablesOf(opts);

    const { db, dialect } = openDatabase(opts);
    try {
      await expect(migrateToLatest(db, dialect, [...MIGRATIONS, broken])).rejects.toThrow(/^migration failed: 999-broken: /);
      // The applied set, listed by name (migrations of parallel work are appended out of name order).
      expect(await listAppliedMigrations(db, dialect)).toEqual(MIGRATIONS.map((m) => m.name).sort());
    } finally {
      await db.destroy();
    }
    expect(await tablesOf(opts)).toEqual(before);
    expect(before).not.toContain("half_done");
  });

  it("ST-2 a failing first migration leaves a fresh database without its tables", async () => {
    const opts = await fresh();
    const { db, dialect } = openDatabase(opts);
    try {
      await expect(migrateToLatest(db, dialect, [broken])).rejects.toThrow(/^migration failed:/);
    } finally {
      await db.destroy();
    }
    expect(await tablesOf(opts)).toEqual(["grove_migrations"]);
  });

  it("ST-2 a database migrated by a newer version is refused", async () => {
    const opts = await fresh();
    const { db, dialect } = openDatabase(opts);
    try {
      await migrateToLatest(db, dialect, MIGRATIONS);
      await db.insertInto("grove_migrations").values({ name: "500-from-the-future", applied_at: new Date().toISOString() }).execute();
      await expect(migrateToLatest(db, dialect, MIGRATIONS)).rejects.toThrow(/^migration failed: .*500-from-the-future/);
    } finally {
      await db.destroy();
    }
    await expect(openStore(opts)).rejects.toThrow(/^migration failed:/);
  });

  it("ST-1 an unsupported database URL is refused without echoing it", async () => {
    const opts = await fresh();
    expect(() => openDatabase({ home: opts.home, databaseUrl: "mysql://u:secret@h/db" })).toThrow(/^unsupported database URL/);
    expect(() => openDatabase({ home: opts.home, databaseUrl: "mysql://u:secret@h/db" })).not.toThrow(/secret/);
  });
});
