import { describe, expect, it } from "vitest";
import type { TaskRecord } from "./records.js";
import { agentActivity, taskSummary } from "./task-summary.js";

const at = (n: number) => `2026-11-30T10:00:0${n}.000Z`;
const task = (archivedAt: string | null) =>
  ({ id: "t1", title: "T", description: "", state: "in_progress", archivedAt, createdAt: at(0), updatedAt: at(1), repositories: [] }) as unknown as TaskRecord;
const parts = (sessions: { id: string; state: string; createdAt: string }[], asking: string[] = []) =>
  ({ repositoryNames: new Map(), slots: [], sessions, diffStat: undefined, asking: new Set(asking) }) as Parameters<typeof taskSummary>[1];

describe("BOARD-1 the board's agent state of a task", () => {
  it("a permission question outranks work, work outranks waiting; failed only when the newest failed and nothing is live", () => {
    const s = (id: string, state: string, n: number) => ({ id, state, createdAt: at(n) }) as never;
    expect(agentActivity([s("a", "waiting_for_input", 1), s("b", "running", 2)], new Set(["b"]))).toEqual({
      state: "needs_permission",
      sessionId: "b",
      asks: "permission",
    });
    expect(agentActivity([s("a", "running", 1), s("b", "waiting_for_input", 2)], new Set())).toEqual({ state: "running", sessionId: "a" });
    expect(agentActivity([s("a", "waiting_for_input", 1), s("b", "failed", 2)], new Set())).toEqual({ state: "waiting", sessionId: "a" });
    expect(agentActivity([s("a", "failed", 1)], new Set())).toEqual({ state: "failed", sessionId: "a" });
    expect(agentActivity([], new Set())).toEqual({ state: "none" });
  });

  it("MCP-3 an open agent question needs the person like a permission request, whatever its session's state; the newer one is named", () => {
    const s = (id: string, state: string, n: number) => ({ id, state, createdAt: at(n) }) as never;
    expect(agentActivity([s("a", "running", 1)], new Set(), new Set(["a"]))).toEqual({ state: "needs_permission", sessionId: "a", asks: "question" });
    expect(agentActivity([s("a", "waiting_for_input", 1)], new Set(), new Set(["a"]))).toEqual({ state: "needs_permission", sessionId: "a", asks: "question" });
    expect(agentActivity([s("a", "running", 1), s("b", "running", 2)], new Set(["b"]), new Set(["a"]))).toEqual({
      state: "needs_permission",
      sessionId: "b",
      asks: "permission",
    });
    expect(agentActivity([s("a", "running", 1), s("b", "running", 2)], new Set(["a"]), new Set(["b"]))).toEqual({
      state: "needs_permission",
      sessionId: "b",
      asks: "question",
    });
    expect(agentActivity([s("a", "running", 1)], new Set(), new Set())).toEqual({ state: "running", sessionId: "a" });
  });

  it("LC-3 an archived task shows no agent: its cleanup stopped them, whatever state its sessions kept", () => {
    const sessions = [{ id: "a", state: "waiting_for_input", createdAt: at(1) }];
    expect(taskSummary(task(null), parts(sessions)).agent).toEqual({ state: "waiting", sessionId: "a" });
    expect(taskSummary(task(at(2)), parts(sessions)).agent).toEqual({ state: "none" });
  });
});
