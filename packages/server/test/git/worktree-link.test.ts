import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readConfinedText } from "../../src/git/file-lines.js";
import { GitRunner } from "../../src/git/runner.js";
import { WorktreeManager } from "../../src/git/worktrees.js";
import { gitSync, makeRepo, plantGitDir, tempDir } from "../fixture/git.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

async function worktreeWithPlant() {
  const repo = await makeRepo();
  const home = await tempDir("grove-home-");
  cleanups.push(repo.cleanup, () => rm(home, { recursive: true, force: true }));
  const tasks = join(home, "tasks");
  const path = join(tasks, "t-1", "repo");
  const git = new GitRunner({ pinnedRoots: [tasks] });
  const wt = new WorktreeManager(git);
  await wt.create({ repoPath: repo.path, worktreePath: path, branch: "grove/t-1", startPoint: "main", newBranch: true });
  const marker = join(home, "ran");
  plantGitDir(path, marker, { redirect: false });
  const original = readFileSync(join(path, ".git"), "utf8");
  return { repo, home, git, wt, path, marker, original };
}

describe("SBX-4 the git runner and the worktree link", () => {
  it("SBX-4 a pinned call runs in the recorded git dir whatever the worktree's .git says; plain git follows the planted one", async () => {
    const { repo, git, wt, path, marker, original } = await worktreeWithPlant();
    const pin = await wt.pin({ repoPath: repo.path, worktreePath: path });
    writeFileSync(join(path, ".git"), "gitdir: evilgit\n");
    gitSync(path, "status", "--porcelain");
    expect(existsSync(marker)).toBe(true);
    rmSync(marker);
    const r = await git.run(["rev-parse", "--path-format=absolute", "--git-dir", "--abbrev-ref", "HEAD"], { cwd: pin });
    expect(r.stdout.split("\n").slice(0, 2)).toEqual([pin.gitDir, "grove/t-1"]);
    await git.run(["status", "--porcelain"], { cwd: pin });
    expect(existsSync(marker)).toBe(false);
    expect(original).toContain(pin.gitDir);
  });

  it("SBX-4 a plain-directory git call inside a pinned root is refused before any process starts", async () => {
    const { git, path } = await worktreeWithPlant();
    const before = git.spawnCount;
    await expect(git.run(["status"], { cwd: path })).rejects.toMatchObject({ code: "internal_error" });
    await expect(git.run(["status"], { cwd: join(path, "evilgit") })).rejects.toMatchObject({ code: "internal_error" });
    expect(git.spawnCount).toBe(before);
  });

  it("SBX-4 link states: a redirected file, a symlink and a .git directory are tampered; pin refuses them; repair writes the file back (never over a directory)", async () => {
    const { repo, wt, path, original } = await worktreeWithPlant();
    expect((await wt.link({ repoPath: repo.path, worktreePath: path })).state).toBe("ok");
    writeFileSync(join(path, ".git"), "gitdir: evilgit\n");
    expect((await wt.link({ repoPath: repo.path, worktreePath: path })).state).toBe("tampered");
    await expect(wt.pin({ repoPath: repo.path, worktreePath: path })).rejects.toMatchObject({ code: "workspace_tampered" });
    expect(await wt.validate({ repoPath: repo.path, worktreePath: path, branch: "grove/t-1" })).toMatchObject({ ok: false, reason: "tampered" });
    expect(await wt.repairLink({ repoPath: repo.path, worktreePath: path })).toEqual({ repaired: true });
    expect(readFileSync(join(path, ".git"), "utf8").trim()).toBe(original.trim());
    expect(await wt.validate({ repoPath: repo.path, worktreePath: path, branch: "grove/t-1" })).toEqual({ ok: true });

    rmSync(join(path, ".git"));
    symlinkSync(join(path, "evilgit"), join(path, ".git"));
    expect((await wt.link({ repoPath: repo.path, worktreePath: path })).state).toBe("tampered");
    await wt.repairLink({ repoPath: repo.path, worktreePath: path });
    expect((await wt.link({ repoPath: repo.path, worktreePath: path })).state).toBe("ok");

    rmSync(join(path, ".git"));
    mkdirSync(join(path, ".git"));
    expect((await wt.link({ repoPath: repo.path, worktreePath: path })).state).toBe("tampered");
    await expect(wt.repairLink({ repoPath: repo.path, worktreePath: path })).rejects.toMatchObject({ code: "workspace_tampered" });
    rmSync(join(path, ".git"), { recursive: true });
    expect((await wt.link({ repoPath: repo.path, worktreePath: path })).state).toBe("unlinked");
  });

  it("SEC-2 comment lines: a confined read never follows a symlink out of the worktree, made before or after", async () => {
    const { home, path } = await worktreeWithPlant();
    writeFileSync(join(home, "secret.txt"), "outside\n");
    writeFileSync(join(path, "inside.txt"), "inside\n");
    expect(await readConfinedText(path, "inside.txt")).toBe("inside\n");
    symlinkSync(join(home, "secret.txt"), join(path, "link.txt"));
    mkdirSync(join(path, "sub"));
    symlinkSync(home, join(path, "sub", "out"));
    expect(await readConfinedText(path, "link.txt")).toBeNull();
    expect(await readConfinedText(path, "sub/out/secret.txt")).toBeNull();
    expect(await readConfinedText(path, "../secret.txt")).toBeNull();
    expect(await readConfinedText(path, join(home, "secret.txt"))).toBeNull();
  });
});
