import { randomUUID } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { gitSyncCount, makeRepo } from "../fixture/git.js";

/**
 * The suite's repository fixture: hundreds of tests start from `makeRepo`, and each git process it
 * starts blocks its vitest worker, so the repository it makes (and how few processes it takes) is
 * checked here once.
 */
describe("makeRepo fixture", () => {
  test("one commit on main holding README.md and the files, a clean tree, the repository's own identity, from three git processes", async () => {
    const before = gitSyncCount();
    // Files no other test in this worker asked for: the first such repository is made by git.
    const repo = await makeRepo({ files: { "src/a.ts": "export const a = 1;\n", "b.txt": `b ${randomUUID()}\n` } });
    try {
      expect(gitSyncCount() - before).toBe(3);
      expect(repo.git("rev-parse", "--abbrev-ref", "HEAD").trim()).toBe("main");
      expect(repo.git("rev-list", "--count", "HEAD").trim()).toBe("1");
      expect(repo.git("log", "-1", "--format=%s|%an|%ae|%cn|%ce").trim()).toBe("initial|Grove Test|test@grove.invalid|Grove Test|test@grove.invalid");
      expect(repo.git("ls-tree", "-r", "--name-only", "HEAD").trim().split("\n")).toEqual(["README.md", "b.txt", "src/a.ts"]);
      expect(repo.git("status", "--porcelain")).toBe("");
      // Read back through git itself: a config file git could not parse fails these.
      expect(repo.git("config", "--local", "--get", "user.name").trim()).toBe("Grove Test");
      expect(repo.git("config", "--local", "--get", "user.email").trim()).toBe("test@grove.invalid");
      expect(repo.git("config", "--local", "--get", "commit.gpgsign").trim()).toBe("false");
      // Tests take the identity away with `git config --unset` (review/git-identity.test.ts).
      repo.git("config", "--unset", "user.name");
      expect(() => repo.git("config", "--local", "--get", "user.name")).toThrow();
    } finally {
      await repo.cleanup();
    }
  });

  test("a second repository with the same files is a copy made without git: the same commit, a clean tree, its own .git, changed without touching the first", async () => {
    const files = { "c.txt": `c ${randomUUID()}\n` };
    const first = await makeRepo({ files });
    const before = gitSyncCount();
    const second = await makeRepo({ files, name: "other" });
    try {
      expect(gitSyncCount() - before).toBe(0);
      expect(second.path).not.toBe(first.path);
      expect(second.path.endsWith("/other")).toBe(true);
      expect(second.git("rev-parse", "HEAD")).toBe(first.git("rev-parse", "HEAD"));
      expect(second.git("status", "--porcelain")).toBe("");
      expect(second.git("config", "--local", "--get", "user.email").trim()).toBe("test@grove.invalid");
      // Its own repository: a commit and a config change in the copy leave the first as it was.
      writeFileSync(join(second.path, "c.txt"), "changed\n");
      second.git("commit", "-qam", "second");
      second.git("config", "--unset", "user.name");
      expect(first.git("rev-list", "--count", "HEAD").trim()).toBe("1");
      expect(first.git("status", "--porcelain")).toBe("");
      expect(first.git("config", "--local", "--get", "user.name").trim()).toBe("Grove Test");
      expect(readFileSync(join(first.path, "c.txt"), "utf8")).toBe(files["c.txt"]);
    } finally {
      await first.cleanup();
      await second.cleanup();
    }
  });
});
