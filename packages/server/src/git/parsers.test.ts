import { describe, expect, it } from "vitest";
import { parseRawNumstat, parseStatusV2 } from "./changes-parse.js";
import { parseWorktreeList } from "./worktree-list.js";

describe("-z parsers (CHG-1, WT-6)", () => {
  it("CHG-1 parses porcelain v2 entries whose paths hold spaces and newlines", () => {
    const out = [
      "# branch.oid abc",
      "# branch.head (detached)",
      "1 .M N... 100644 100644 100644 aaa bbb a file.txt",
      "2 R. N... 100644 100644 100644 aaa bbb R100 new name\nx",
      "old name",
      "u UU N... 100644 100644 100644 100644 a b c conf lict",
      "? un tracked",
      "",
    ].join("\0");
    expect(parseStatusV2(out)).toEqual({
      branch: null,
      entries: [
        { kind: "changed", path: "a file.txt", x: ".", y: "M" },
        { kind: "renamed", path: "new name\nx", origPath: "old name", x: "R", y: "." },
        { kind: "unmerged", path: "conf lict", x: "U", y: "U" },
        { kind: "untracked", path: "un tracked", x: "?", y: "?" },
      ],
    });
  });

  it("CHG-1 pairs raw statuses with numstat records, renames and binaries included", () => {
    const out = [
      ":100644 100644 a b M",
      "m\tx.txt",
      ":100644 100644 a b R097",
      "old",
      "new",
      ":100644 100644 a b T",
      "t",
      "1\t2\tm\tx.txt",
      "3\t0\t",
      "old",
      "new",
      "-\t-\tt",
      "",
    ].join("\0");
    expect(parseRawNumstat(out)).toEqual([
      { path: "m\tx.txt", status: "M", additions: 1, deletions: 2 },
      { path: "new", oldPath: "old", status: "R", additions: 3, deletions: 0 },
      { path: "t", status: "T", additions: null, deletions: null },
    ]);
  });

  it("WT-6 parses worktree list --porcelain -z", () => {
    const out = [
      "worktree /r",
      "HEAD 1111",
      "branch refs/heads/main",
      "",
      "worktree /w/new\nline",
      "HEAD 2222",
      "detached",
      "locked",
      "prunable gitdir file points to non-existent location",
      "",
      "",
    ].join("\0");
    expect(parseWorktreeList(out)).toEqual([
      { path: "/r", head: "1111", branch: "main", locked: false, prunable: false },
      { path: "/w/new\nline", head: "2222", branch: null, locked: true, prunable: true },
    ]);
  });
});
