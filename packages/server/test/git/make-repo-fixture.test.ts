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
    const repo = await makeRepo({ files: { "src/a.ts": "export const a = 1;\n", "b.txt": "b\n" } });
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
});
