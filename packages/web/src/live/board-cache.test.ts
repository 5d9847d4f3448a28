import type { Page, TaskSummary } from "@grove/protocol";
import { QueryClient, type InfiniteData } from "@tanstack/react-query";
import { describe, expect, it } from "vitest";
import { keys } from "../api/keys.js";
import { dropSummary, findSummary, putRunnerState, putSummary } from "./board-cache.js";

type Pages = InfiniteData<Page<TaskSummary>, string | undefined>;

function summary(id: string, over: Partial<TaskSummary> = {}): TaskSummary {
  return {
    id,
    title: `Task ${id}`,
    state: "todo",
    archivedAt: null,
    createdAt: `2026-12-01T10:00:0${id.slice(-1)}.000Z`,
    updatedAt: "2026-12-01T10:00:00.000Z",
    repositories: [{ repositoryId: "repo_a", name: "a", branch: `grove/${id}` }],
    agent: { state: "none" },
    diffStat: null,
    pullRequests: [],
    runnerId: "runner_1",
    runnerState: "online",
    ...over,
  };
}

/** A board column as the page caches it: newest first, `nextCursor` null when fully loaded. */
function column(qc: QueryClient, state: string, items: TaskSummary[], nextCursor: string | null = null, q = "") {
  const key = keys.taskPages(false, state, "", q, 50);
  qc.setQueryData<Pages>(key, { pages: [{ items, nextCursor }], pageParams: [undefined] });
  return () => qc.getQueryData<Pages>(key)!.pages.flatMap((p) => p.items.map((x) => x.id));
}

describe("WEB-1.2 the board's cached columns follow task.summary frames (live/board-cache.ts)", () => {
  it("WEB-1.2: a summary that moves a task leaves its old column and enters the new one at its newest-first place", () => {
    const qc = new QueryClient();
    const todo = column(qc, "todo", [summary("t3"), summary("t1")]);
    const doing = column(qc, "in_progress", [summary("t4", { state: "in_progress" }), summary("t2", { state: "in_progress" })]);
    putSummary(qc, summary("t3", { state: "in_progress", updatedAt: "2026-12-01T11:00:00.000Z" }));
    expect(todo()).toEqual(["t1"]);
    expect(doing()).toEqual(["t4", "t3", "t2"]);
  });

  it("WEB-1.2: an older summary never overwrites a newer card; a card past the loaded range waits for its page", () => {
    const qc = new QueryClient();
    const newer = summary("t2", { title: "new title", updatedAt: "2026-12-01T12:00:00.000Z" });
    const todo = column(qc, "todo", [newer], "cursor-2");
    putSummary(qc, summary("t2", { title: "old title", updatedAt: "2026-12-01T11:00:00.000Z" }));
    expect(findSummary(qc, "t2")?.title).toBe("new title");
    // Older than every loaded card while more pages exist: not inserted (the next page brings it).
    putSummary(qc, summary("t0", { createdAt: "2026-11-30T00:00:00.000Z" }));
    expect(todo()).toEqual(["t2"]);
  });

  it("WEB-1.2: the text filter keeps a listed card whose title stopped matching (descriptions match too), but admits no new one", () => {
    const qc = new QueryClient();
    const filtered = column(qc, "todo", [summary("t1", { title: "fix widget" })], null, "widget");
    putSummary(qc, summary("t1", { title: "renamed", updatedAt: "2026-12-01T11:00:00.000Z" }));
    putSummary(qc, summary("t2", { title: "unrelated" }));
    expect(filtered()).toEqual(["t1"]);
    putSummary(qc, summary("t3", { title: "another widget" }));
    expect(filtered()).toEqual(["t3", "t1"]);
  });

  it("WEB-1.2: task.deleted drops the card; runner.updated marks every card of that runner", () => {
    const qc = new QueryClient();
    const todo = column(qc, "todo", [summary("t2"), summary("t1", { runnerId: "runner_2" })]);
    putRunnerState(qc, "runner_1", "offline");
    expect(findSummary(qc, "t2")?.runnerState).toBe("offline");
    expect(findSummary(qc, "t1")?.runnerState).toBe("online");
    dropSummary(qc, "t2");
    expect(todo()).toEqual(["t1"]);
  });
});
