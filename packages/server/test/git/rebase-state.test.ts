import { mkdir, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { operationInProgress } from "../../src/git/rebase.js";
import { GitRunner } from "../../src/git/runner.js";
import { makeRepo, type TestRepo } from "../fixture/git.js";

const repos: TestRepo[] = [];
afterAll(async () => {
  for (const r of repos) await r.cleanup();
});

/**
 * A repository whose `main` and `side` both changed `f.txt` (so a merge or a rebase of one onto
 * the other stops on a conflict), with a linked worktree of `side`. `dirName` is the checkout's
 * directory name (a line break in it tests the one-path-at-a-time fallback).
 */
async function conflictingRepo(dirName = "repo"): Promise<{ repo: TestRepo; linked: string }> {
  const repo = await makeRepo({ files: { "f.txt": "base\n" }, name: dirName });
  repos.push(repo);
  repo.git("checkout", "-q", "-b", "side");
  await writeFile(join(repo.path, "f.txt"), "side\n");
  repo.git("commit", "-qam", "side");
  repo.git("checkout", "-q", "main");
  await writeFile(join(repo.path, "f.txt"), "main\n");
  repo.git("commit", "-qam", "main");
  const linked = join(repo.path, "..", "linked");
  repo.git("worktree", "add", "-q", "-b", "side2", linked, "side");
  return { repo, linked };
}

/** Runs `git <args>` expecting it to stop on the conflict (a non-zero exit). */
function stops(repo: TestRepo, cwd: string, ...args: string[]): void {
  expect(() => repo.git("-C", cwd, ...args)).toThrow();
}

describe("WT-6 REV-2 which operation is stopped in a worktree (git's own state files)", () => {
  it("nothing, a merge, a rebase (merge backend), a rebase (apply backend): in the checkout and in a linked worktree, each on its own", async () => {
    const { repo, linked } = await conflictingRepo();
    const git = new GitRunner();
    expect(await operationInProgress(git, repo.path)).toBeNull();
    expect(await operationInProgress(git, linked)).toBeNull();

    stops(repo, linked, "merge", "-q", "main");
    expect(await operationInProgress(git, linked)).toBe("merge");
    // Per worktree: the checkout's own state is untouched by the linked worktree's merge.
    expect(await operationInProgress(git, repo.path)).toBeNull();
    repo.git("-C", linked, "merge", "--abort");
    expect(await operationInProgress(git, linked)).toBeNull();

    stops(repo, repo.path, "rebase", "-q", "side");
    expect(await operationInProgress(git, repo.path)).toBe("rebase");
    expect(await operationInProgress(git, linked)).toBeNull();
    repo.git("rebase", "--abort");

    stops(repo, linked, "rebase", "--apply", "-q", "main");
    expect(await operationInProgress(git, linked)).toBe("rebase");
    repo.git("-C", linked, "rebase", "--abort");
    expect(await operationInProgress(git, linked)).toBeNull();
  });

  it("a rebase that stopped with MERGE_HEAD left behind still reads as a rebase (the rebase files decide first)", async () => {
    const { repo } = await conflictingRepo();
    const git = new GitRunner();
    stops(repo, repo.path, "rebase", "-q", "side");
    const gitDir = join(repo.path, ".git");
    await writeFile(join(gitDir, "MERGE_HEAD"), `${repo.git("rev-parse", "side").trim()}\n`);
    expect(await operationInProgress(git, repo.path)).toBe("rebase");
    // Only MERGE_HEAD: a merge.
    await rename(join(gitDir, "rebase-merge"), join(gitDir, "moved-away"));
    expect(await operationInProgress(git, repo.path)).toBe("merge");
    await mkdir(join(gitDir, "rebase-apply"));
    expect(await operationInProgress(git, repo.path)).toBe("rebase");
  });

  it("one git process a call: the three state files are resolved by one rev-parse", async () => {
    const { repo, linked } = await conflictingRepo();
    const git = new GitRunner();
    stops(repo, linked, "merge", "-q", "main");
    const before = git.spawnCount;
    expect(await operationInProgress(git, linked)).toBe("merge");
    expect(await operationInProgress(git, repo.path)).toBeNull();
    expect(git.spawnCount - before).toBe(2);
  });

  it("SBX-4 a pinned worktree's state is read from its recorded admin dir, with the answers git gives and no git process", async () => {
    const { repo, linked } = await conflictingRepo();
    const git = new GitRunner();
    const pinned = { workTree: linked, gitDir: join(repo.path, ".git", "worktrees", "linked") };
    const both = async () => {
      const before = git.spawnCount;
      const fromPin = await operationInProgress(git, pinned);
      expect(git.spawnCount - before).toBe(0);
      expect(await operationInProgress(git, linked)).toBe(fromPin);
      return fromPin;
    };
    expect(await both()).toBeNull();
    stops(repo, linked, "merge", "-q", "main");
    expect(await both()).toBe("merge");
    repo.git("-C", linked, "merge", "--abort");
    stops(repo, linked, "rebase", "-q", "main");
    expect(await both()).toBe("rebase");
    repo.git("-C", linked, "rebase", "--abort");
    stops(repo, linked, "rebase", "--apply", "-q", "main");
    expect(await both()).toBe("rebase");
    repo.git("-C", linked, "rebase", "--abort");
    // The checkout's own stopped merge is not the linked worktree's.
    stops(repo, repo.path, "merge", "-q", "side");
    expect(await both()).toBeNull();
  });

  it("a checkout whose path holds a line break: each path resolved on its own, the same answers", async () => {
    const { repo, linked } = await conflictingRepo("odd\nname");
    const git = new GitRunner();
    expect(await operationInProgress(git, repo.path)).toBeNull();
    stops(repo, repo.path, "merge", "-q", "side");
    expect(await operationInProgress(git, repo.path)).toBe("merge");
    repo.git("merge", "--abort");
    stops(repo, repo.path, "rebase", "-q", "side");
    expect(await operationInProgress(git, repo.path)).toBe("rebase");
    expect(await operationInProgress(git, linked)).toBeNull();
  });
});
