import type { Changes } from "@grove/protocol";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { ChangesSummary } from "./ChangesSummary.js";

const render = (changes: Changes | undefined, error: unknown = undefined) =>
  renderToStaticMarkup(createElement(ChangesSummary, { taskId: "task_1", changes, error, repoName: () => "demo" }));

const oneFile = {
  taskId: "task_1",
  repositories: [
    {
      repositoryId: "repo_1",
      worktreeId: "wt_1",
      branch: "grove/x",
      baseBranch: "main",
      ahead: 1,
      behind: 0,
      status: "ready",
      files: [{ path: "a.txt", status: "added", additions: 2, deletions: 0, binary: false }],
    },
  ],
} as unknown as Changes;

describe("WEB-8.1 the Changes panel says what it knows (task/ChangesSummary.tsx)", () => {
  it("WEB-8.1: before the first read answers the panel says it is loading, not an empty card", () => {
    const html = render(undefined);
    expect(html).toContain("Loading changes…");
    expect(html).not.toContain("No worktrees yet");
  });

  it("WEB-8.1: a failed read shows the error, not a loading line that never ends", () => {
    const html = render(undefined, new Error("boom"));
    expect(html).not.toContain("Loading changes…");
    expect(html).toContain("Could not load changes");
  });

  it("WEB-8.1: an answer replaces the loading line with the worktrees or says there are none yet", () => {
    const none = render({ taskId: "task_1", repositories: [] } as unknown as Changes);
    expect(none).not.toContain("Loading changes…");
    expect(none).toContain("No worktrees yet: the first session creates them.");
    const one = render(oneFile);
    expect(one).not.toContain("Loading changes…");
    expect(one).toContain("1 commit to merge into main");
    expect(one).toContain('data-path="a.txt"');
  });
});
