import { readFileSync, writeFileSync } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readRef, restoreWorkFromRef, saveWorkToRef, savedParents } from "../../src/git/archive-ref.js";
import { GitRunner } from "../../src/git/runner.js";
import { gitSync, makeRepo, tempDir } from "../fixture/git.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

const status = (cwd: string): string[] => gitSync(cwd, "status", "--porcelain").split("\n").filter(Boolean).sort();
const REF = "refs/grove/archived/task_x/default";

describe("LC-8 saved work (git/archive-ref.ts)", () => {
  it("LC-8 staged and unstaged changes are saved apart and come back apart (a file staged and then edited again: MM)", async () => {
    const repo = await makeRepo({ files: { "a.txt": "a\n", "b.txt": "b\n" } });
    cleanups.push(repo.cleanup);
    const git = new GitRunner();
    writeFileSync(join(repo.path, "a.txt"), "a staged\n");
    gitSync(repo.path, "add", "a.txt");
    writeFileSync(join(repo.path, "a.txt"), "a staged then edited\n");
    writeFileSync(join(repo.path, "b.txt"), "b unstaged\n");
    writeFileSync(join(repo.path, "new.txt"), "new staged\n");
    gitSync(repo.path, "add", "new.txt");
    writeFileSync(join(repo.path, "untracked.txt"), "u\n");
    const before = status(repo.path);
    expect(before).toEqual(["?? untracked.txt", "A  new.txt", "MM a.txt", " M b.txt"].sort());
    const commit = await saveWorkToRef(git, repo.path, REF, "save");
    expect(commit).not.toBeNull();
    expect((await savedParents(git, repo.path, commit!)).staged).not.toBeNull();
    gitSync(repo.path, "reset", "-q", "--hard");
    gitSync(repo.path, "clean", "-fdq");
    expect(status(repo.path)).toEqual([]);
    expect(await restoreWorkFromRef(git, repo.path, commit!)).toEqual({ staged: "restored" });
    expect(status(repo.path)).toEqual(before);
    expect(readFileSync(join(repo.path, "a.txt"), "utf8")).toBe("a staged then edited\n");
    expect(gitSync(repo.path, "show", ":a.txt")).toBe("a staged\n");
  });

  it("LC-8 an unborn HEAD (no commit yet): the work is saved on an empty base and restored exactly", async () => {
    const root = await tempDir("grove-unborn-");
    cleanups.push(() => rm(root, { recursive: true, force: true }));
    const cwd = join(root, "repo");
    await mkdir(cwd);
    gitSync(cwd, "init", "-q", "-b", "main");
    writeFileSync(join(cwd, "staged.txt"), "s\n");
    gitSync(cwd, "add", "staged.txt");
    writeFileSync(join(cwd, "loose.txt"), "l\n");
    const git = new GitRunner();
    const commit = await saveWorkToRef(git, cwd, REF, "save unborn");
    expect(commit).not.toBeNull();
    expect(await readRef(git, cwd, REF)).toBe(commit);
    const { base } = await savedParents(git, cwd, commit!);
    expect(gitSync(cwd, "ls-tree", "-r", "--name-only", base!).trim()).toBe("");
    expect(gitSync(cwd, "ls-tree", "-r", "--name-only", commit!).trim().split("\n").sort()).toEqual(["loose.txt", "staged.txt"]);
    // The worktree loses everything; the save brings it back.
    gitSync(cwd, "rm", "-q", "--cached", "staged.txt");
    await rm(join(cwd, "staged.txt"));
    await rm(join(cwd, "loose.txt"));
    await restoreWorkFromRef(git, cwd, commit!);
    expect(readFileSync(join(cwd, "staged.txt"), "utf8")).toBe("s\n");
    expect(readFileSync(join(cwd, "loose.txt"), "utf8")).toBe("l\n");
  });
});
