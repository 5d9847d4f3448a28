import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../../../..");
const SKIP = new Set(["node_modules", "dist", ".git", ".grove-test"]);
const CODE = /\.(ts|tsx|mts|js|mjs)$/;

function walk(dir: string, keep: (name: string) => boolean): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (SKIP.has(e.name)) return [];
    const path = join(dir, e.name);
    if (e.isDirectory()) return walk(path, keep);
    return keep(e.name) ? [path] : [];
  });
}

/** The code whose comments must stand on their own: every package's sources, tests, benchmarks and scripts. */
function codeFiles(): string[] {
  const packages = readdirSync(join(ROOT, "packages"));
  const dirs = packages.flatMap((p) => ["src", "test", "bench", "scripts", "bin"].map((d) => join(ROOT, "packages", p, d)));
  return [...dirs, join(ROOT, "scripts")].flatMap((d) => walk(d, (n) => CODE.test(n)));
}

/**
 * Every comment of a file, with its line. Leading trivia of every token (not only of nodes), so a
 * comment before a closing brace or inside JSX braces counts too; strings and templates never do.
 */
function commentsOf(fileName: string, text: string): { line: number; text: string }[] {
  const kind = fileName.endsWith("x") ? ts.ScriptKind.TSX : fileName.endsWith("js") ? ts.ScriptKind.JS : ts.ScriptKind.TS;
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, kind);
  const seen = new Set<number>();
  const found: { line: number; text: string }[] = [];
  const collect = (ranges: readonly ts.CommentRange[] | undefined): void => {
    for (const r of ranges ?? []) {
      if (seen.has(r.pos)) continue;
      seen.add(r.pos);
      found.push({ line: sf.getLineAndCharacterOfPosition(r.pos).line + 1, text: text.slice(r.pos, r.end) });
    }
  };
  const visit = (n: ts.Node): void => {
    if (n.kind === ts.SyntaxKind.JsxText) return;
    collect(ts.getLeadingCommentRanges(text, n.pos));
    collect(ts.getTrailingCommentRanges(text, n.end));
    for (const child of n.getChildren(sf)) visit(child);
  };
  visit(sf);
  return found;
}

/** Every Markdown document of the repository, as paths from its root. */
const documents = walk(ROOT, (n) => n.endsWith(".md")).map((p) => relative(ROOT, p));
const documentNames = new Set(documents.map((d) => d.split("/").pop()));

/**
 * Whether a Markdown name in a comment is a document of this repository: a bare name that some document
 * carries, or a path that resolves from the commenting file, from the repository root, or is the
 * tail of a document's path (`specs/cli.md`, `decisions/…md`).
 */
function exists(ref: string, file: string): boolean {
  if (!ref.includes("/")) return documentNames.has(ref);
  if (existsSync(resolve(dirname(file), ref)) || existsSync(resolve(ROOT, ref))) return true;
  const tail = ref.replace(/^(\.{1,2}\/)+/, "");
  return documents.some((d) => d === tail || d.endsWith(`/${tail}`));
}

const MD_REF = /[\w.\-/]*[\w-]\.md\b/g;
const ISSUE = /\bissues?[ -]#?\d+/i;
const TEST_CALL = /^(it|test|describe)(\.(each|only|skip|concurrent|sequential)\b.*)?$/s;

/** The names of a file's tests and suites (the string first argument of `it`, `test`, `describe` and their `.each(…)`). */
function testNamesOf(fileName: string, text: string): { line: number; text: string }[] {
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, fileName.endsWith("x") ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const found: { line: number; text: string }[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isCallExpression(n) && TEST_CALL.test(n.expression.getText(sf))) {
      const first = n.arguments[0];
      if (first && (ts.isStringLiteral(first) || ts.isNoSubstitutionTemplateLiteral(first)))
        found.push({ line: sf.getLineAndCharacterOfPosition(first.getStart(sf)).line + 1, text: first.text });
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return found;
}

/** A comment's faults: documents it names that are not in the repository, and issue numbers (history belongs in git); a test name's issue numbers. */
function faults(file: string, text: string): string[] {
  const name = relative(ROOT, file);
  const names = /\.test\.tsx?$/.test(file) ? testNamesOf(file, text) : [];
  return [
    ...names.filter((t) => ISSUE.test(t.text)).map((t) => `${name}:${t.line} test name cites "${ISSUE.exec(t.text)![0]}" (name the requirement ID)`),
    ...commentsOf(file, text).flatMap((c) => [
      ...[...c.text.matchAll(MD_REF)].filter((m) => !exists(m[0], file)).map((m) => `${name}:${c.line} names ${m[0]}, which is not in the repository`),
      ...(ISSUE.test(c.text) ? [`${name}:${c.line} cites "${ISSUE.exec(c.text)![0]}" (state the why, or a requirement ID)`] : []),
    ]),
  ];
}

describe("architecture: comments stand on their own", () => {
  it("no comment names a Markdown document that is not in the repository, nor an issue number; no test name cites an issue number", () => {
    const files = codeFiles();
    expect(files.length).toBeGreaterThan(100);
    expect(files.flatMap((f) => faults(f, readFileSync(f, "utf8")))).toEqual([]);
  });

  it("the check sees test names: an issue tag in it/test/describe(.each) names is a fault, a requirement ID is not", () => {
    const here = join(ROOT, "packages/server/test/example.test.ts");
    const code = [
      'describe.each(["a"])("issue-11 suite %s", () => {',
      '  it("RV-3 update: fast rebase", () => {});',
      '  test("issue 4 AC: merged", () => {});',
      '  expect("issue-9 is a string").toBe("x");',
      "});",
    ].join("\n");
    expect(faults(here, code)).toEqual([
      'packages/server/test/example.test.ts:1 test name cites "issue-11" (name the requirement ID)',
      'packages/server/test/example.test.ts:3 test name cites "issue 4" (name the requirement ID)',
    ]);
  });

  it("the check sees comments, not strings: its own examples", () => {
    const here = join(ROOT, "packages/server/src/example.ts");
    const code = [
      "/** Shapes of CONTRACT.md. */",
      'const a = "CONTRACT.md issue 7";',
      "const b = `../shared/SPEC.md`;",
      "function f() {",
      "  g(); // see docs/specs/cli.md and docs/architecture.md",
      "  // fixed in issue 12",
      "}",
      "const el = <div>{/* ../../docs/specs/missing.md */}README.md</div>;",
    ].join("\n");
    expect(faults(here.replace(/\.ts$/, ".tsx"), code)).toEqual([
      "packages/server/src/example.tsx:1 names CONTRACT.md, which is not in the repository",
      'packages/server/src/example.tsx:6 cites "issue 12" (state the why, or a requirement ID)',
      "packages/server/src/example.tsx:8 names ../../docs/specs/missing.md, which is not in the repository",
    ]);
  });
});
