import type { Task } from "@grove/protocol";
import { describe, expect, it } from "vitest";
import { taskTable } from "./task-ls.js";

const at = "2026-01-02T03:04:05.000Z";
const task = (id: string, extra: Partial<Task> = {}): Task => ({
  id,
  title: `title of ${id}`,
  description: "",
  state: "todo",
  archivedAt: null,
  createdAt: at,
  updatedAt: at,
  repositories: [],
  ...extra,
});

describe("CLI-11 task ls shows a RUNNER column only when it tells something", () => {
  it("CLI-11 one runner (and tasks without an environment): no RUNNER column", () => {
    const lines = taskTable([task("task_a", { runnerId: "runner_1", runnerState: "online" }), task("task_b"), task("task_c", { runnerId: "runner_1" })]);
    expect(lines[0]).toMatch(/^ID\s+STATE\s+TITLE$/);
    expect(lines.join("\n")).not.toContain("runner_1");
  });

  it("CLI-11 tasks on two runners: a RUNNER column, `-` before an environment", () => {
    const lines = taskTable([task("task_a", { runnerId: "runner_1", runnerState: "online" }), task("task_b", { runnerId: "runner_2" }), task("task_c")]);
    expect(lines[0]).toMatch(/^ID\s+STATE\s+RUNNER\s+TITLE$/);
    expect(lines.slice(1).map((l) => l.split(/\s{2,}/)[2])).toEqual(["runner_1", "runner_2", "-"]);
  });

  it("CLI-11 the one runner offline: the column stays, saying so", () => {
    const lines = taskTable([task("task_a", { runnerId: "runner_1", runnerState: "offline" }), task("task_b")]);
    expect(lines[0]).toMatch(/^ID\s+STATE\s+RUNNER\s+TITLE$/);
    expect(lines[1]).toMatch(/^task_a\s+To do\s+runner_1 runner_offline\s+title of task_a$/);
  });
});
