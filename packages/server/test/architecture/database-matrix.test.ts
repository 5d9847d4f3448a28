import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../../../..");
const TESTS = resolve(ROOT, "packages/server/test");

function testFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return testFiles(path);
    return e.name.endsWith(".test.ts") ? [path] : [];
  });
}

/**
 * What only runs on one dialect: a branch on the database kind, or a database several runners
 * share (PostgreSQL only). In a file on `ONE_DATABASE` (SQLite) such a test or check would never
 * run, so the file belongs on `DATABASES`.
 */
const DIALECT_ONLY = [/[!=]==\s*"(postgres|sqlite)"/, /"(postgres|sqlite)"\s*[!=]==/, /\bsharedDatabase\(/];

describe("ST-1 the database matrix of the tests (test/fixture/db.ts)", () => {
  it("ST-1 a file on ONE_DATABASE declares no test or check for one dialect alone (it would silently never run)", () => {
    const offenders: string[] = [];
    let onOne = 0;
    for (const file of testFiles(TESTS)) {
      const text = readFileSync(file, "utf8");
      if (!/\bONE_DATABASE\b/.test(text)) continue;
      onOne += 1;
      text.split("\n").forEach((line, i) => {
        if (DIALECT_ONLY.some((re) => re.test(line))) offenders.push(`${relative(ROOT, file)}:${i + 1}: ${line.trim()}`);
      });
    }
    expect(onOne).toBeGreaterThan(0);
    expect(offenders).toEqual([]);
  });

  it("ST-1 ONE_DATABASE is SQLite, and both dialects with GROVE_TEST_DATABASES=both", () => {
    const lists = (env: Record<string, string>) =>
      execFileSync(
        process.execPath,
        [
          "--import",
          "tsx",
          "--input-type=module",
          "-e",
          'const m = await import("./packages/server/test/fixture/db.ts"); console.log(JSON.stringify([m.DATABASES, m.ONE_DATABASE]));',
        ],
        { cwd: ROOT, encoding: "utf8", env: { ...process.env, GROVE_TEST_DATABASES: "", ...env } },
      ).trim();
    expect(JSON.parse(lists({}))).toEqual([["sqlite", "postgres"], ["sqlite"]]);
    expect(JSON.parse(lists({ GROVE_TEST_DATABASES: "both" }))).toEqual([
      ["sqlite", "postgres"],
      ["sqlite", "postgres"],
    ]);
  });
});
