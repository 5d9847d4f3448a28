import { existsSync } from "node:fs";
import { mkdir, rm, symlink, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { computeChanges, fileDiff } from "../../src/git/changes.js";
import { GitRunner } from "../../src/git/runner.js";
import { WorktreeManager } from "../../src/git/worktrees.js";
import { gitSync, makeRepo, tempDir, type TestRepo } from "../fixture/git.js";
import { rawExpectation } from "../fixture/git-oracle.js";

const LINES = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag} line ${i}\n`).join("");
const BIN = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3, 0, 0xff]);
const ODD = ["space name.txt", "ünïcödé ✓.txt", 'q"uote.txt', "new\nline.txt", "tab\there.txt"];

let repo: TestRepo;
let home: string;
let wt: string;
const git = new GitRunner();

beforeAll(async () => {
  const files: Record<string, string> = {
    "mod.txt": LINES(10, "mod"),
    "del.txt": LINES(3, "del"),
    "ren-src.txt": LINES(40, "rename me"),
    "type.txt": "was a file\n",
    "space name.txt": "one\n",
  };
  repo = await makeRepo({ files });
  await writeFile(join(repo.path, "bin.dat"), BIN);
  repo.git("add", "bin.dat");
  repo.git("commit", "-qm", "binary");
  home = await tempDir("grove-changes-");
  wt = join(home, "tasks", "t-1", "repo");
  await new WorktreeManager(git).create({ repoPath: repo.path, worktreePath: wt, branch: "grove/t", startPoint: "main", newBranch: true });

  // One commit on the task branch, one on main after the fork.
  await writeFile(join(wt, "committed.txt"), LINES(5, "committed"));
  gitSync(wt, "add", "committed.txt");
  gitSync(wt, "commit", "-qm", "on branch");
  await writeFile(join(repo.path, "main-only.txt"), "main\n");
  repo.git("add", "main-only.txt");
  repo.git("commit", "-qm", "on main");

  // Uncommitted changes of every kind.
  await writeFile(join(wt, "mod.txt"), LINES(10, "mod").replace("mod line 3\n", "changed\nadded\n"));
  await writeFile(join(wt, "staged-new.txt"), LINES(4, "staged"));
  gitSync(wt, "add", "staged-new.txt");
  gitSync(wt, "rm", "-q", "del.txt");
  gitSync(wt, "mv", "ren-src.txt", "ren-dst.txt");
  await writeFile(join(wt, "bin.dat"), Buffer.concat([BIN, BIN]));
  await unlink(join(wt, "type.txt"));
  await symlink("mod.txt", join(wt, "type.txt"));
  await writeFile(join(wt, "space name.txt"), "one\ntwo\n");
  for (const name of ODD.slice(1)) await writeFile(join(wt, name), `odd ${JSON.stringify(name)}\nsecond`);
  await writeFile(join(wt, "blob.bin"), BIN);
  await writeFile(join(wt, "empty.txt"), "");
  await mkdir(join(wt, "dir", "sub"), { recursive: true });
  await writeFile(join(wt, "dir", "sub", "deep.txt"), "deep\n"); // untracked files are listed one by one
  await writeFile(join(wt, ".gitignore"), "ignored.log\n");
  await writeFile(join(wt, "ignored.log"), "never listed\n");
  // Untracked files on both counting paths: small ones are read at once, larger ones in chunks.
  await writeFile(join(wt, "large-untracked.txt"), LINES(9000, "large"));
  await writeFile(join(wt, "late-nul.txt"), Buffer.concat([Buffer.from(LINES(300, "text")), Buffer.from([0]), Buffer.from("\ntail")]));
  await writeFile(join(wt, "no-final-newline.txt"), "one\ntwo");
});

afterAll(async () => {
  await repo.cleanup();
  await rm(home, { recursive: true, force: true });
});

describe("computeChanges (CHG-1)", () => {
  it("CHG-1 file list and counts equal git's numstat against the merge-base plus untracked files", async () => {
    const before = git.spawnCount;
    const c = await computeChanges(git, { worktreePath: wt, baseBranch: "main" });
    expect(git.spawnCount - before).toBeLessThanOrEqual(5);
    const mb = gitSync(wt, "merge-base", "HEAD", "main").trim();
    expect(c).toMatchObject({ branch: "grove/t", baseBranch: "main", mergeBase: mb, ahead: 1, behind: 1, truncated: false });

    const expected = rawExpectation(wt, mb);
    expect(c.files.map((f) => f.path).sort()).toEqual([...expected.keys()].sort());
    for (const f of c.files) {
      const e = expected.get(f.path)!;
      expect({ path: f.path, additions: f.additions, deletions: f.deletions, binary: f.binary }).toEqual({
        path: f.path,
        additions: e.additions,
        deletions: e.deletions,
        binary: e.binary,
      });
      if (e.oldPath !== undefined) expect(f.oldPath).toBe(e.oldPath);
    }
    for (const odd of ODD) expect(c.files.some((f) => f.path === odd)).toBe(true);
    expect(c.files.some((f) => f.path === "ignored.log")).toBe(false);
  });

  it("CHG-1 statuses and staged/unstaged flags", async () => {
    const c = await computeChanges(git, { worktreePath: wt, baseBranch: "main" });
    const by = new Map(c.files.map((f) => [f.path, f]));
    expect(by.get("mod.txt")).toMatchObject({ status: "modified", staged: false, unstaged: true, additions: 2, deletions: 1 });
    expect(by.get("staged-new.txt")).toMatchObject({ status: "added", staged: true, unstaged: false, additions: 4 });
    expect(by.get("del.txt")).toMatchObject({ status: "deleted", staged: true, deletions: 3 });
    expect(by.get("ren-dst.txt")).toMatchObject({ status: "renamed", oldPath: "ren-src.txt", staged: true });
    expect(by.get("bin.dat")).toMatchObject({ status: "modified", binary: true, unstaged: true });
    expect(by.get("type.txt")).toMatchObject({ status: "typechange", unstaged: true });
    expect(by.get("committed.txt")).toMatchObject({ status: "added", staged: false, unstaged: false, additions: 5 });
    expect(by.get("blob.bin")).toMatchObject({ status: "untracked", binary: true, additions: 0 });
    expect(by.get("empty.txt")).toMatchObject({ status: "untracked", additions: 0 });
    expect(by.get("new\nline.txt")).toMatchObject({ status: "untracked", staged: false, unstaged: true, additions: 2 });
    expect(by.get("dir/sub/deep.txt")).toMatchObject({ status: "untracked", additions: 1 });
    expect(by.has("main-only.txt")).toBe(false);
  });

  it("CHG-1 caps the file list and flags truncated", async () => {
    const c = await computeChanges(git, { worktreePath: wt, baseBranch: "main", maxFiles: 3 });
    expect(c.files).toHaveLength(3);
    expect(c.truncated).toBe(true);
  });

  it("CHG-1 a conflicted path is reported as conflicted", async () => {
    const r = await makeRepo({ files: { "f.txt": "a\nb\n" } });
    try {
      r.git("switch", "-qc", "side");
      await writeFile(join(r.path, "f.txt"), "a\nside\n");
      r.git("commit", "-qam", "side");
      r.git("switch", "-q", "main");
      await writeFile(join(r.path, "f.txt"), "a\nmain\n");
      r.git("commit", "-qam", "main");
      r.git("switch", "-q", "side");
      expect(() => r.git("merge", "-q", "main")).toThrow();
      const c = await computeChanges(git, { worktreePath: r.path, baseBranch: "main" });
      expect(c.files.find((f) => f.path === "f.txt")).toMatchObject({ status: "conflicted" });
    } finally {
      await r.cleanup();
    }
  });

  it("CHG-1 histories with no common commit: mergeBase null, Changes against HEAD (what git's numstat says)", async () => {
    const other = join(home, "tasks", "t-orphan", "repo");
    gitSync(repo.path, "worktree", "add", "-q", "--detach", other, "main");
    gitSync(other, "switch", "-q", "--orphan", "alone");
    await writeFile(join(other, "only.txt"), LINES(3, "only"));
    gitSync(other, "add", "only.txt");
    gitSync(other, "commit", "-qm", "no shared history");
    await writeFile(join(other, "only.txt"), LINES(4, "only"));
    const c = await computeChanges(git, { worktreePath: other, baseBranch: "main" });
    expect(c).toMatchObject({ branch: "alone", mergeBase: null, ahead: 1 });
    const expected = rawExpectation(other, "HEAD");
    expect(c.files.map((f) => [f.path, f.additions, f.deletions])).toEqual([...expected.entries()].map(([p, e]) => [p, e.additions, e.deletions]));
    expect(c.files).toHaveLength(1);
  });

  it("SEC-3 a base branch that looks like an option is a name: base_branch_not_found, no file written", async () => {
    const out = join(home, "pwned");
    const err = await computeChanges(git, { worktreePath: wt, baseBranch: `--output=${out}` }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "base_branch_not_found" });
    expect(existsSync(out)).toBe(false);
  });
});

describe("fileDiff (CHG-2)", () => {
  it("CHG-2 a modified file's patch against the merge-base", async () => {
    const d = await fileDiff(git, { worktreePath: wt, baseBranch: "main", path: "mod.txt" });
    expect(d.binary).toBe(false);
    expect(d.truncated).toBe(false);
    expect(d.patch).toContain("--- a/mod.txt");
    expect(d.patch).toContain("-mod line 3");
    expect(d.patch).toContain("+changed");
  });

  it("CHG-2 a committed file on the branch diffs against the merge-base", async () => {
    const d = await fileDiff(git, { worktreePath: wt, baseBranch: "main", path: "committed.txt" });
    expect(d.patch).toContain("new file mode");
    expect(d.patch).toContain("+committed line 4");
  });

  it("CHG-2 an untracked file diffs as a new file, odd names included", async () => {
    const d = await fileDiff(git, { worktreePath: wt, baseBranch: "main", path: "new\nline.txt" });
    expect(d.patch).toContain("new file mode");
    expect(d.patch).toContain("+second");
    const u = await fileDiff(git, { worktreePath: wt, baseBranch: "main", path: "ünïcödé ✓.txt" });
    expect(u.patch).toContain("ünïcödé ✓.txt");
  });

  it("CHG-2 binary files are flagged, not dumped", async () => {
    expect(await fileDiff(git, { worktreePath: wt, baseBranch: "main", path: "bin.dat" })).toEqual({ patch: "", binary: true, truncated: false });
    expect(await fileDiff(git, { worktreePath: wt, baseBranch: "main", path: "blob.bin" })).toEqual({ patch: "", binary: true, truncated: false });
  });

  it("CHG-2 a patch over the cap is cut at a line end and flagged truncated", async () => {
    const d = await fileDiff(git, { worktreePath: wt, baseBranch: "main", path: "ren-dst.txt", maxBytes: 200 });
    expect(d.truncated).toBe(true);
    expect(Buffer.byteLength(d.patch)).toBeLessThanOrEqual(200);
    expect(d.patch.endsWith("\n")).toBe(true);
  });

  it("SEC-3 paths are literal and never options", async () => {
    expect(await fileDiff(git, { worktreePath: wt, baseBranch: "main", path: "*.txt" })).toEqual({ patch: "", binary: false, truncated: false });
    const out = join(wt, "x-out");
    await fileDiff(git, { worktreePath: wt, baseBranch: "main", path: `--output=${out}` });
    expect(existsSync(out)).toBe(false);
  });
});
