import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { Kysely, SqliteDialect, sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { withStatementCache } from "./sqlite-statements.js";

describe("ST-1 the SQLite statement cache", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  function open(): Database.Database {
    const dir = mkdtempSync(join(tmpdir(), "grove-stmt-"));
    dirs.push(dir);
    const db = new Database(join(dir, "t.db"));
    db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)");
    db.exec("INSERT INTO t (v) VALUES ('a'), ('b'), ('c')");
    return db;
  }

  it("hands out one prepared statement per SQL text, and a fresh one while that one is still iterating", () => {
    const db = open();
    const cached = withStatementCache(db);
    const a = cached.prepare("SELECT v FROM t ORDER BY id");
    expect(cached.prepare("SELECT v FROM t ORDER BY id")).toBe(a);
    const iter = (a as unknown as Database.Statement).iterate() as IterableIterator<{ v: string }>;
    expect(iter.next().value).toEqual({ v: "a" });
    // `a` is busy: reusing it would throw ("This statement is busy executing a query").
    const b = cached.prepare("SELECT v FROM t ORDER BY id");
    expect(b).not.toBe(a);
    expect((b as unknown as Database.Statement).all()).toEqual([{ v: "a" }, { v: "b" }, { v: "c" }]);
    expect([...iter]).toEqual([{ v: "b" }, { v: "c" }]);
    db.close();
  });

  it("keeps at most `max` statements, dropping the least recently used", () => {
    const db = open();
    const cached = withStatementCache(db, 2);
    const one = cached.prepare("SELECT 1");
    const two = cached.prepare("SELECT 2");
    expect(cached.prepare("SELECT 1")).toBe(one); // 1 is now the most recent
    cached.prepare("SELECT 3"); // evicts 2
    expect(cached.prepare("SELECT 1")).toBe(one);
    expect(cached.prepare("SELECT 2")).not.toBe(two);
    db.close();
  });

  it("serves Kysely's queries, a stream included, and sees schema changes", async () => {
    const db = open();
    const k = new Kysely<{ t: { id: number; v: string } }>({ dialect: new SqliteDialect({ database: withStatementCache(db) }) });
    const rows: string[] = [];
    for await (const r of k.selectFrom("t").select("v").orderBy("id").stream()) rows.push(r.v);
    expect(rows).toEqual(["a", "b", "c"]);
    // The statement the stream iterated is reused once it is done.
    expect(await k.selectFrom("t").select("v").orderBy("id").execute()).toEqual([{ v: "a" }, { v: "b" }, { v: "c" }]);
    await sql`ALTER TABLE t ADD COLUMN w TEXT DEFAULT 'x'`.execute(k);
    expect(await sql<{ n: number }>`SELECT count(*) AS n FROM t WHERE w = 'x'`.execute(k).then((r) => r.rows[0]!.n)).toBe(3);
    await k.destroy();
  });
});
