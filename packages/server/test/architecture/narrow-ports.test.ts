import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ORCHESTRATOR = resolve(import.meta.dirname, "../../src/orchestrator");

/**
 * The composition files: `context.ts` declares `Deps`, `orchestrator.ts` is the facade that
 * receives every port from app.ts and hands each use case its subset. Nothing else sees the bag.
 */
const COMPOSITION = new Set(["context.ts", "orchestrator.ts"]);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return e.name.endsWith(".ts") && !e.name.endsWith(".test.ts") ? [path] : [];
  });
}

/** The local names under which a file imports `Deps` from `orchestrator/context.ts`. */
function depsNames(sf: ts.SourceFile): Set<string> {
  const names = new Set<string>();
  for (const st of sf.statements) {
    if (!ts.isImportDeclaration(st) || !ts.isStringLiteral(st.moduleSpecifier) || !/(^|\/)context\.js$/.test(st.moduleSpecifier.text)) continue;
    const bindings = st.importClause?.namedBindings;
    if (!bindings || !ts.isNamedImports(bindings)) continue;
    for (const el of bindings.elements) if ((el.propertyName ?? el.name).text === "Deps") names.add(el.name.text);
  }
  return names;
}

/**
 * Every use of the whole `Deps` in a file: a reference to it that is not the first argument of
 * `Pick<Deps, …>` (the declared ports) or the object of an indexed access (`Deps["store"]`, a
 * port's type). A parameter, property, alias, intersection or `Omit` of the bag is a use.
 */
function wholeDepsUses(fileName: string, text: string): string[] {
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const names = depsNames(sf);
  const found: string[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isTypeReferenceNode(n) && ts.isIdentifier(n.typeName) && names.has(n.typeName.text)) {
      const p = n.parent;
      const picked = ts.isTypeReferenceNode(p) && ts.isIdentifier(p.typeName) && p.typeName.text === "Pick" && p.typeArguments?.[0] === n;
      const indexed = ts.isIndexedAccessTypeNode(p) && p.objectType === n;
      if (!picked && !indexed) {
        const line = sf.getLineAndCharacterOfPosition(n.getStart()).line + 1;
        found.push(`${fileName}:${line} ${p.getText().slice(0, 100)}`);
      }
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return found;
}

/** Members of class `name` (or its constructor's parameter properties) called `deps` that are reachable from outside. */
function publicDeps(text: string, name: string): string[] {
  const sf = ts.createSourceFile("x.ts", text, ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const hidden = (mods: readonly ts.ModifierLike[] | undefined) =>
    (mods ?? []).some((m) => m.kind === ts.SyntaxKind.PrivateKeyword || m.kind === ts.SyntaxKind.ProtectedKeyword);
  for (const st of sf.statements) {
    if (!ts.isClassDeclaration(st) || st.name?.text !== name) continue;
    for (const m of st.members) {
      if (ts.isConstructorDeclaration(m)) {
        for (const p of m.parameters) {
          const isProperty = (ts.getModifiers(p)?.length ?? 0) > 0;
          if (isProperty && p.name.getText() === "deps" && !hidden(ts.getModifiers(p))) out.push(p.getText());
        }
      } else if (m.name && m.name.getText() === "deps" && !hidden(ts.canHaveModifiers(m) ? ts.getModifiers(m) : undefined)) out.push(m.getText());
    }
  }
  return out;
}

describe("architecture: use cases name the ports they use", () => {
  it("no use case under orchestrator/ takes the whole Deps as a parameter, property or alias (only context.ts and orchestrator.ts see it)", () => {
    const uses = sourceFiles(ORCHESTRATOR)
      .filter((f) => !COMPOSITION.has(relative(ORCHESTRATOR, f)))
      .flatMap((f) => wholeDepsUses(relative(ORCHESTRATOR, f), readFileSync(f, "utf8")));
    expect(uses).toEqual([]);
  });

  it("the check sees a whole Deps in a parameter, a property, an alias and an Omit, and lets Pick and indexed access pass", () => {
    const imp = 'import type { Deps as D } from "../context.js";\n';
    expect(wholeDepsUses("a.ts", `${imp}export function f(d: D) {}`)).toHaveLength(1);
    expect(wholeDepsUses("a.ts", `${imp}export class C { constructor(private readonly deps: D) {} }`)).toHaveLength(1);
    expect(wholeDepsUses("a.ts", `${imp}export interface I { deps: D }`)).toHaveLength(1);
    expect(wholeDepsUses("a.ts", `${imp}export type P = D & { x: 1 };`)).toHaveLength(1);
    expect(wholeDepsUses("a.ts", `${imp}export function f(d: Omit<D, "git">) {}`)).toHaveLength(1);
    expect(wholeDepsUses("a.ts", `${imp}export function f(d: Pick<D, "store">, s: D["store"]) {}`)).toEqual([]);
    // A local interface of the same name (worktrees/pool.ts has one) is not the bag.
    expect(wholeDepsUses("a.ts", "interface Deps { git: 1 }\nexport function f(d: Deps) {}")).toEqual([]);
  });

  it("Orchestrator keeps its Deps private: the API reaches ports only through its methods", () => {
    const text = readFileSync(join(ORCHESTRATOR, "orchestrator.ts"), "utf8");
    expect(text).toContain("class Orchestrator");
    expect(publicDeps(text, "Orchestrator")).toEqual([]);
    expect(publicDeps("class Orchestrator { constructor(readonly deps: D) {} }", "Orchestrator")).toHaveLength(1);
    expect(publicDeps("class Orchestrator { deps: D; }", "Orchestrator")).toHaveLength(1);
    expect(publicDeps("class Orchestrator { constructor(private readonly deps: D) {} }", "Orchestrator")).toEqual([]);
  });
});
