import { mkdir, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { inspectRepository } from "../../src/git/repository.js";
import { GitRunner } from "../../src/git/runner.js";
import { gitSync, makeRepo, tempDir } from "../fixture/git.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});
const git = new GitRunner();

async function scratch(): Promise<string> {
  const d = await tempDir("grove-inspect-");
  cleanups.push(() => rm(d, { recursive: true, force: true }));
  return d;
}

describe("inspectRepository (SEC-3 input validation of repository paths)", () => {
  it("SEC-3 returns real path, common dir, current branch and origin", async () => {
    const repo = await makeRepo({ files: { "sub/x.txt": "x\n" } });
    cleanups.push(repo.cleanup);
    repo.git("remote", "add", "origin", "https://example.invalid/o/r.git");
    repo.git("switch", "-qc", "develop");
    const d = await scratch();
    await symlink(repo.path, join(d, "alias"));
    const info = await inspectRepository(git, join(d, "alias"));
    expect(info).toEqual({
      path: repo.path,
      commonDir: join(repo.path, ".git"),
      defaultBranch: "develop",
      originUrl: "https://example.invalid/o/r.git",
      checkedOut: "develop",
    });
  });

  it("SEC-3 a checkout on a branch is read with two git processes, and its common dir is known after", async () => {
    const repo = await makeRepo();
    cleanups.push(repo.cleanup);
    const counted = new GitRunner();
    const info = await inspectRepository(counted, repo.path);
    expect(info).toMatchObject({ defaultBranch: "main", checkedOut: "main", commonDir: join(repo.path, ".git") });
    expect(counted.spawnCount).toBe(2);
    expect(await counted.commonDir(repo.path)).toBe(join(repo.path, ".git"));
    expect(counted.spawnCount).toBe(2);
  });

  it("SEC-3 an unborn checkout defaults to its HEAD's branch, which is not checked out yet", async () => {
    const d = await scratch();
    gitSync(d, "init", "-q", "-b", "trunk", "empty");
    expect(await inspectRepository(git, join(d, "empty"))).toMatchObject({ defaultBranch: "trunk", checkedOut: null, originUrl: null });
  });

  it("SEC-3 a detached checkout defaults to main and has no origin", async () => {
    const repo = await makeRepo();
    cleanups.push(repo.cleanup);
    repo.git("switch", "-q", "--detach");
    expect(await inspectRepository(git, repo.path)).toMatchObject({ defaultBranch: "main", originUrl: null, checkedOut: null });
  });

  it("SEC-3 refuses relative, missing, non-directory, non-repository, subdirectory, bare and .git paths", async () => {
    const repo = await makeRepo({ files: { "sub/x.txt": "x\n" } });
    cleanups.push(repo.cleanup);
    const d = await scratch();
    await writeFile(join(d, "file"), "x");
    await mkdir(join(d, "plain"));
    gitSync(d, "init", "-q", "--bare", "bare.git");
    const code = (p: string) =>
      inspectRepository(git, p).then(
        () => "ok",
        (e: { code: string }) => e.code,
      );
    expect(await code("relative/path")).toBe("path_not_absolute");
    expect(await code(join(d, "missing"))).toBe("path_not_found");
    expect(await code(join(d, "file"))).toBe("not_a_git_repository");
    expect(await code(join(d, "plain"))).toBe("not_a_git_repository");
    expect(await code(join(repo.path, "sub"))).toBe("not_a_git_repository");
    expect(await code(join(d, "bare.git"))).toBe("not_a_git_repository");
    expect(await code(join(repo.path, ".git"))).toBe("not_a_git_repository");
    expect(await code(repo.path)).toBe("ok");
  });
});
