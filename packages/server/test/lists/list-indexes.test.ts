import { CompiledQuery, sql, type Compilable, type Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DB, StoreDialect } from "../../src/store/schema.js";
import { cleanupJobPageQuery, messagePageQuery, sessionPageQuery, taskPageQuery, type TaskFilter } from "../../src/store/list-pages.js";
import { openDatabase } from "../../src/store/open.js";
import { interruptedSessionsQuery } from "../../src/store/recovery.js";
import { DATABASES, openTestStore } from "../fixture/db.js";
import { repository, session, task } from "../store/records.js";

const AFTER = { at: "2030-01-01T00:10:00.000Z", id: "task_m" };

/**
 * Every filter and every keyset order of the paged lists is answered through an
 * index on both databases — read from the planner itself (EXPLAIN), on the exact queries the
 * API runs, over enough rows (analyzed) that a scan would be the natural choice otherwise.
 */
describe.each(DATABASES)("list indexes on %s", (kind) => {
  let ctx: { db: Kysely<DB>; dialect: StoreDialect };
  let cleanup: () => Promise<void>;
  let repoId = "";

  beforeAll(async () => {
    const t = await openTestStore(kind);
    cleanup = async () => {
      await ctx.db.destroy();
      await t.cleanup();
    };
    const repos = [repository(), repository()];
    for (const r of repos) await t.store.insertRepository(r);
    // The second repository holds few tasks: the one a selective repository filter asks for.
    repoId = repos[1]?.id ?? "";
    // `failed` is rare: the state a selective filter asks for.
    const states = ["todo", "in_progress", "review", "done"] as const;
    // One transaction: the seed is about row counts, not about commit latency.
    await t.store.transaction(async () => {
      for (let i = 0; i < 3000; i++) {
        await t.store.insertTask(
          task([repos[i % 30 === 0 ? 1 : 0]?.id ?? ""], {
            title: `task number ${i} ${i % 97 === 0 ? "needle" : "hay"}`,
            state: i % 50 === 7 ? "failed" : (states[i % 4] ?? "todo"),
            archivedAt: i % 10 === 0 ? "2030-02-01T00:00:00.000Z" : null,
          }),
        );
      }
    });
    const some = await t.store.listTasks({ archived: false });
    for (const [i, x] of some.slice(0, 400).entries()) await t.store.insertSession(session(x.id, i % 100 === 0 ? "running" : "waiting_for_input"));
    ctx = openDatabase({ home: t.home, ...(t.databaseUrl !== undefined && { databaseUrl: t.databaseUrl }) });
    await sql`ANALYZE`.execute(ctx.db);
  }, 120_000);
  afterAll(async () => cleanup?.());

  /** The planner's text for a query (PostgreSQL with sequential scans priced out, so any usable index wins). */
  async function plan(q: Compilable): Promise<string> {
    const c = q.compile();
    if (kind === "sqlite") {
      const r = await ctx.db.executeQuery<{ detail: string }>(CompiledQuery.raw(`EXPLAIN QUERY PLAN ${c.sql}`, [...c.parameters]));
      return r.rows.map((x) => x.detail).join("\n");
    }
    return ctx.db.transaction().execute(async (trx) => {
      await sql`SET LOCAL enable_seqscan = off`.execute(trx);
      const r = await trx.executeQuery<{ "QUERY PLAN": string }>(CompiledQuery.raw(`EXPLAIN ${c.sql}`, [...c.parameters]));
      return r.rows.map((x) => x["QUERY PLAN"]).join("\n");
    });
  }

  /** No full scan of `table` (SQLite "SCAN t" without an index; PostgreSQL "Seq Scan on t"). */
  function expectNoScan(p: string, table: string) {
    if (kind === "sqlite") expect(p).not.toMatch(new RegExp(`SCAN ${table}(?! USING| VIRTUAL)( |$)`, "m"));
    else expect(p).not.toContain(`Seq Scan on ${table}`);
  }

  const tasks = (f: Partial<TaskFilter>, after = false) => taskPageQuery(ctx, { archived: false, ...f }, { limit: 50, ...(after && { after: AFTER }) });

  it("the keyset order of active and archived tasks uses the partial order indexes", async () => {
    for (const archived of [false, true]) {
      const p = await plan(taskPageQuery(ctx, { archived }, { limit: 50, after: AFTER }));
      expect(p).toContain(archived ? "tasks_archived_order_ix" : "tasks_active_order_ix");
      expectNoScan(p, "tasks");
    }
  });

  it("the newest-first order (the board's) walks the same indexes backwards", async () => {
    const p = await plan(taskPageQuery(ctx, { archived: false }, { limit: 50, after: AFTER, newest: true }));
    expect(p).toContain("tasks_active_order_ix");
    expectNoScan(p, "tasks");
    const s = await plan(taskPageQuery(ctx, { archived: false, states: ["failed"] }, { limit: 50, after: AFTER, newest: true }));
    expect(s).toContain("tasks_state_order_ix");
    expectNoScan(s, "tasks");
  });

  it("the state filter uses tasks_state_order_ix", async () => {
    const p = await plan(tasks({ states: ["failed"] }, true));
    expect(p).toContain("tasks_state_order_ix");
    expectNoScan(p, "tasks");
  });

  it("the repository filter uses task_repositories_repo_ix", async () => {
    const p = await plan(tasks({ repositoryId: repoId }));
    expect(p).toContain("task_repositories_repo_ix");
    expectNoScan(p, "task_repositories");
  });

  it("the text filter uses the trigram index", async () => {
    const p = await plan(tasks({ q: "needle" }));
    expect(p).toContain(kind === "sqlite" ? "tasks_text_fts VIRTUAL TABLE INDEX" : "tasks_text_trgm_ix");
  });

  it("sessions, messages and cleanup jobs are paged through indexes", async () => {
    const s = await plan(sessionPageQuery(ctx.db, "task_x", { limit: 20, after: AFTER }));
    expect(s).toContain("sessions_task_order_ix");
    const m = await plan(messagePageQuery(ctx.db, "ses_x", { limit: 20, before: 100 }));
    expect(m).toContain("messages_session_seq_ix");
    const j = await plan(cleanupJobPageQuery(ctx.db, undefined, { limit: 20, after: AFTER }));
    expect(j).toContain("cleanup_jobs_order_ix");
    const jt = await plan(cleanupJobPageQuery(ctx.db, "task_x", { limit: 20, after: AFTER }));
    expect(jt).toContain("cleanup_jobs_task_order_ix");
  });

  it("start-up recovery reads only interrupted sessions, through sessions_recover_ix", async () => {
    const p = await plan(interruptedSessionsQuery(ctx.db, "runner_x"));
    expect(p).toContain("sessions_recover_ix");
    expectNoScan(p, "sessions");
  });
});
