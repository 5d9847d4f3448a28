import { describe, expect, it } from "vitest";
import { parsePatch, splitRows } from "./parse-patch.js";

const PATCH = [
  "diff --git a/src/a.ts b/src/a.ts",
  "index 1111111..2222222 100644",
  "--- a/src/a.ts",
  "+++ b/src/a.ts",
  "@@ -3,4 +3,5 @@ export function f() {",
  " keep",
  "-old one",
  "-old two",
  "+new one",
  "+new two",
  "+new three",
  " tail",
  "@@ -20 +21,0 @@",
  "-gone",
  "\\ No newline at end of file",
  "",
].join("\n");

describe("WEB-8.2 the review's diff parser (review/parse-patch.ts)", () => {
  it("WEB-8.2: rows carry old and new line numbers from each hunk header; file headers are skipped", () => {
    const rows = parsePatch(PATCH);
    expect(rows).toEqual([
      { kind: "hunk", text: "@@ -3,4 +3,5 @@ export function f() {" },
      { kind: "ctx", text: "keep", oldNo: 3, newNo: 3 },
      { kind: "del", text: "old one", oldNo: 4 },
      { kind: "del", text: "old two", oldNo: 5 },
      { kind: "add", text: "new one", newNo: 4 },
      { kind: "add", text: "new two", newNo: 5 },
      { kind: "add", text: "new three", newNo: 6 },
      { kind: "ctx", text: "tail", oldNo: 6, newNo: 7 },
      { kind: "hunk", text: "@@ -20 +21,0 @@" },
      { kind: "del", text: "gone", oldNo: 20 },
      { kind: "note", text: "\\ No newline at end of file" },
    ]);
  });

  it("WEB-8.2: a line that looks like a header inside a hunk is content; an empty patch has no rows", () => {
    expect(parsePatch("")).toEqual([]);
    expect(parsePatch("diff --git a/x b/x\nnew file mode 100644\n")).toEqual([]);
    const rows = parsePatch("@@ -1 +1 @@\n---- a dashed line\n++++ a plussed line\n");
    expect(rows.slice(1)).toEqual([
      { kind: "del", text: "--- a dashed line", oldNo: 1 },
      { kind: "add", text: "+++ a plussed line", newNo: 1 },
    ]);
  });

  it("WEB-8.2: the split view pairs a run of removals with the additions after it, context on both sides", () => {
    const split = splitRows(parsePatch(PATCH));
    expect(split.map((r) => [r.kind, r.text ?? null, r.left?.text ?? null, r.right?.text ?? null])).toEqual([
      ["hunk", "@@ -3,4 +3,5 @@ export function f() {", null, null],
      ["pair", null, "keep", "keep"],
      ["pair", null, "old one", "new one"],
      ["pair", null, "old two", "new two"],
      ["pair", null, null, "new three"],
      ["pair", null, "tail", "tail"],
      ["hunk", "@@ -20 +21,0 @@", null, null],
      ["pair", null, "gone", null],
      ["note", "\\ No newline at end of file", null, null],
    ]);
  });
});
