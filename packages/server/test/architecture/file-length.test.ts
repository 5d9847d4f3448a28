import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../../../..");
/** Past this a file holds more than one concern: split it by concern (`launch.ts`, `launch-attach.ts`). */
const MAX_LINES = 400;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === "node_modules" ? [] : sources(path);
    return /\.(ts|tsx|mts|js|mjs)$/.test(e.name) ? [path] : [];
  });
}

/** Lines as `wc -l` counts them (a last line without a newline still counts). */
function lineCount(text: string): number {
  return text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
}

describe("architecture: small files by concern", () => {
  it(`no file under packages/*/src has more than ${MAX_LINES} lines`, () => {
    const files = readdirSync(join(ROOT, "packages")).flatMap((p) => {
      try {
        return sources(join(ROOT, "packages", p, "src"));
      } catch {
        return [];
      }
    });
    expect(files.length).toBeGreaterThan(100);
    const long = files
      .map((f) => ({ file: relative(ROOT, f), lines: lineCount(readFileSync(f, "utf8")) }))
      .filter((f) => f.lines > MAX_LINES)
      .map((f) => `${f.file}: ${f.lines} lines`);
    expect(long).toEqual([]);
  });
});
