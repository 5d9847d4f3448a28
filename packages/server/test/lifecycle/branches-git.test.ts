import { afterEach, describe, expect, it } from "vitest";
import { deleteMergedBranch } from "../../src/git/branches.js";
import { GitRunner } from "../../src/git/runner.js";
import { makeRepo, type TestRepo } from "../fixture/git.js";

/** LC-7 at the git layer: the last guard before `git branch -D` (no database involved). */
describe("LC-7 deleteMergedBranch", () => {
  const git = new GitRunner();
  let repo: TestRepo | undefined;
  afterEach(async () => {
    await repo?.cleanup();
    repo = undefined;
  });

  it("LC-7: never deletes a branch that is its own base, even with nothing outside it", async () => {
    repo = await makeRepo();
    repo.git("branch", "develop");
    expect(await deleteMergedBranch(git, repo.path, "develop", "develop")).toBe(false);
    expect(repo.git("branch", "--list", "develop").trim()).not.toBe("");
  });

  it("LC-7: never deletes a branch whose tip is not contained in its base; deletes one that is", async () => {
    repo = await makeRepo();
    repo.git("checkout", "-q", "-b", "work");
    repo.git("commit", "-q", "--allow-empty", "-m", "unique");
    repo.git("checkout", "-q", "main");
    repo.git("branch", "merged");
    expect(await deleteMergedBranch(git, repo.path, "work", "main")).toBe(false);
    expect(repo.git("branch", "--list", "work").trim()).not.toBe("");
    expect(await deleteMergedBranch(git, repo.path, "merged", "main")).toBe(true);
    expect(repo.git("branch", "--list", "merged").trim()).toBe("");
  });

  it("LC-7: a base that does not resolve keeps the branch", async () => {
    repo = await makeRepo();
    repo.git("branch", "merged");
    expect(await deleteMergedBranch(git, repo.path, "merged", "gone")).toBe(false);
    expect(repo.git("branch", "--list", "merged").trim()).not.toBe("");
  });
});
