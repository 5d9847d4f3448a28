import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../../../..");
const SETUP_FILE = "packages/server/test/fixture/setup-file.ts";
const HOOKS = new Set(["afterAll", "afterEach", "beforeAll", "beforeEach", "describe", "it", "test"]);

function walk(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (e.name === "node_modules" || e.name === "dist") return [];
    const path = join(dir, e.name);
    if (e.isDirectory()) return walk(path);
    return /\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name) ? [path] : [];
  });
}

/** The vitest hooks and suites a module calls at its top level (`afterAll(…)`, `describe.each(…)(…)`), with their lines. */
function topLevelHooks(file: string, text: string): string[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith("x") ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const calleeName = (e: ts.Expression): string | undefined => {
    if (ts.isIdentifier(e)) return e.text;
    if (ts.isPropertyAccessExpression(e)) return calleeName(e.expression);
    if (ts.isCallExpression(e)) return calleeName(e.expression);
    return undefined;
  };
  return sf.statements.flatMap((s) => {
    if (!ts.isExpressionStatement(s)) return [];
    let e = s.expression;
    if (ts.isAwaitExpression(e)) e = e.expression;
    const name = ts.isCallExpression(e) ? calleeName(e.expression) : undefined;
    return name && HOOKS.has(name) ? [`${name} at line ${sf.getLineAndCharacterOfPosition(s.getStart()).line + 1}`] : [];
  });
}

/**
 * A worker runs test file after test file with the modules it has loaded (`isolate: false` in
 * vitest.config.ts), so a shared module's top level runs once per worker: a hook written there
 * would serve the first file only, and later files would silently go without it. Per-file hooks
 * belong in the setup file (evaluated again before every file) or in a function a test file calls.
 */
describe("test helpers register no hooks at their top level (test files share one worker's modules)", () => {
  it("no module under packages/*/src or packages/*/test other than a test file or the setup file calls a vitest hook or suite at its top level", () => {
    const dirs = readdirSync(join(ROOT, "packages")).flatMap((p) => ["src", "test"].map((d) => join(ROOT, "packages", p, d)));
    const helpers = dirs.flatMap(walk).filter((f) => relative(ROOT, f) !== SETUP_FILE);
    expect(helpers.length).toBeGreaterThan(20);
    const found = helpers.flatMap((f) => topLevelHooks(f, readFileSync(f, "utf8")).map((h) => `${relative(ROOT, f)}: ${h}`));
    expect(found).toEqual([]);
  });

  it("the setup file is the one vitest.config.ts names, and it registers the per-file wait", () => {
    const config = readFileSync(join(ROOT, "vitest.config.ts"), "utf8");
    expect(config).toContain(`setupFiles: ["${SETUP_FILE}"]`);
    const hooks = topLevelHooks(SETUP_FILE, readFileSync(join(ROOT, SETUP_FILE), "utf8"));
    expect(hooks.map((h) => h.split(" ")[0])).toEqual(["afterAll"]);
  });
});
