import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const SRC = resolve(import.meta.dirname, "../../src");
// Static imports and re-exports (`… from "./x.js"`), side-effect imports (`import "./x.js"`) and
// dynamic ones (`import("./x.js")`): each makes the importing file depend on the imported one.
const IMPORT = /(?:(?:^|\n)\s*(?:import|export)\s[^;]*?from\s*|(?:^|\n)\s*import\s*|\bimport\(\s*)["'](\.{1,2}\/[^"']+)["']/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith(".ts") && !name.endsWith(".test.ts") ? [path] : [];
  });
}

/** Relative imports (type-only ones too: they tie the files' meanings together all the same). */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(SRC)) {
    const text = readFileSync(file, "utf8");
    const targets = [...text.matchAll(IMPORT)].map((m) => resolve(dirname(file), m[1]!.replace(/\.js$/, ".ts")));
    graph.set(file, targets);
  }
  return graph;
}

/** Tarjan's strongly connected components with more than one node: the import circles. */
function circles(graph: Map<string, readonly string[]>, name: (v: string) => string = (v) => relative(SRC, v)): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(name(w));
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

/**
 * The folder level: inside every folder, its children (files and subfolders) are the nodes, and
 * an import from a file to another is an arrow between the two children of their deepest
 * common folder that hold them. `orchestrator/tasks/a.ts -> orchestrator/sessions/b.ts` is the
 * arrow `tasks -> sessions` inside `orchestrator/`; `orchestrator/sessions/x.ts ->
 * orchestrator/context.ts` is `sessions -> context.ts`. A folder's own files importing its
 * subfolders (the facade) is no circle unless a subfolder imports that same file back.
 */
function folderGraphs(files: Map<string, string[]>): Map<string, Map<string, Set<string>>> {
  const byFolder = new Map<string, Map<string, Set<string>>>();
  for (const [from, targets] of files) {
    for (const to of targets) {
      if (!files.has(to)) continue;
      const a = relative(SRC, from).split("/");
      const b = relative(SRC, to).split("/");
      let i = 0;
      while (i < a.length - 1 && i < b.length - 1 && a[i] === b[i]) i++;
      if (a[i] === b[i]) continue;
      const folder = a.slice(0, i).join("/") || ".";
      const graph = byFolder.get(folder) ?? new Map<string, Set<string>>();
      byFolder.set(folder, graph);
      if (!graph.has(b[i]!)) graph.set(b[i]!, new Set());
      const out = graph.get(a[i]!) ?? new Set<string>();
      graph.set(a[i]!, out.add(b[i]!));
    }
  }
  return byFolder;
}

describe("architecture: no import circles in packages/server/src", () => {
  it("every file's imports form a graph without cycles (agents/agent-handle <-> runtime, the materialize/refresh ring stay broken)", () => {
    const graph = importGraph();
    expect(graph.size).toBeGreaterThan(100);
    expect(graph.get(join(SRC, "agents/runtime.ts"))).toContain(join(SRC, "agents/agent-handle.ts"));
    expect(circles(graph)).toEqual([]);
  });

  it("no folder's children import each other in a circle (the orchestrator's use-case folders: tasks/sessions, tasks/changes, lifecycle/review, context.ts/sessions stay broken)", () => {
    const byFolder = folderGraphs(importGraph());
    const orchestrator = byFolder.get("orchestrator")!;
    // The graph is read, not empty: the facade sees the folders, the folders see Deps, review sits on sessions.
    expect([...orchestrator.get("orchestrator.ts")!]).toEqual(expect.arrayContaining(["review", "sessions", "tasks", "lifecycle"]));
    expect([...orchestrator.get("sessions")!]).toEqual(expect.arrayContaining(["context.ts", "tasks", "worktrees", "lifecycle"]));
    expect(orchestrator.get("review")!.has("sessions")).toBe(true);
    expect(byFolder.get(".")!.get("api")!.has("orchestrator")).toBe(true);
    const found = [...byFolder].flatMap(([folder, graph]) => circles(new Map([...graph].map(([k, v]) => [k, [...v]])), (child) => `${folder}/${child}`));
    expect(found).toEqual([]);
  });
});
