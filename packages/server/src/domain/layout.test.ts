import { describe, expect, it } from "vitest";
import { creationTitleSlug, isValidBranchName, renderBranchName, slotDirName, slotSlug, slugify, taskDirName } from "./layout.js";

describe("WT-1 / WT-2 layout and branch names", () => {
  it("WT-1 task directory is a short title slug plus a short id", () => {
    expect(taskDirName("Fix the Widget: now!", "task_AbCdEfGhIj")).toBe("fix-the-widget-now-abcdefgh");
    expect(slugify("Ünïcödé title")).toBe("unicode-title");
    expect(slugify("!!!")).toBe("task");
  });

  it("WT-1 first slot of a repository is <repo>, later ones <repo>-<slug>", () => {
    expect(slotDirName("api", "main", true)).toBe("api");
    expect(slotDirName("api", "release-2", false)).toBe("api-release-2");
    expect(slotSlug({ baseBranch: "release/2.0", checkoutBranch: null, prNumber: null })).toBe("release-2-0");
    expect(slotSlug({ baseBranch: "main", checkoutBranch: "feat/x", prNumber: null })).toBe("feat-x");
  });

  it("WT-2 SEC-3 git ref rules, and nothing that could become an option (HEAD, refs/…)", () => {
    for (const ok of ["main", "grove/fix-1", "feature/a.b", "v1.2"]) expect(isValidBranchName(ok)).toBe(true);
    for (const bad of [
      "",
      "-x",
      "--upload-pack=x",
      "a..b",
      "a b",
      "a~1",
      "x.lock",
      "a/.b",
      "a//b",
      "@",
      "a@{1}",
      "end.",
      "/a",
      "a/",
      "a\\b",
      "a:b",
      "a\u0001b",
      "HEAD",
      "refs/heads/main",
      "a\u0000b",
    ]) {
      expect(isValidBranchName(bad), bad).toBe(false);
    }
  });

  it("WT-2 branches are named from the title the task was created with (its fixed directory name)", () => {
    const dir = taskDirName("Fix the Widget: now!", "task_AbCdEfGhIj");
    expect(creationTitleSlug(dir)).toBe("fix-the-widget-now");
    expect(creationTitleSlug(taskDirName("!!!", "task_x1"))).toBe("task");
  });

  it("WT-2 template placeholders {title} {taskId} {suffix}", () => {
    expect(renderBranchName("grove/{title}-{suffix}", { title: "Add Login", taskId: "task_1", suffix: "ab12" })).toBe("grove/add-login-ab12");
    expect(renderBranchName("t/{taskId}", { title: "x", taskId: "task_1", suffix: "s" })).toBe("t/task_1");
    expect(() => renderBranchName("bad..{suffix}", { title: "x", taskId: "t", suffix: "s" })).toThrow(/not a valid branch name/);
  });
});
