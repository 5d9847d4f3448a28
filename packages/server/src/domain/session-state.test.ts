import { describe, expect, it } from "vitest";
import { allowedFrom, deriveTaskState, isTerminal } from "./session-state.js";

describe("SES-1 session states and the derived task state", () => {
  it("SES-1 no routine transition starts from a terminal state", () => {
    for (const to of ["starting", "running", "waiting_for_input", "completed", "failed", "cancelled"] as const) {
      for (const from of allowedFrom(to)) expect(isTerminal(from), `${from} → ${to}`).toBe(false);
    }
  });

  it("a task is in_progress while a session works and review when all wait; done is kept", () => {
    expect(deriveTaskState("todo", ["running", "waiting_for_input"])).toBe("in_progress");
    expect(deriveTaskState("in_progress", ["waiting_for_input", "waiting_for_input"])).toBe("review");
    expect(deriveTaskState("done", ["running"])).toBe("done");
    expect(deriveTaskState("todo", [])).toBe("todo");
    expect(deriveTaskState("todo", ["failed"])).toBe("failed");
    expect(deriveTaskState("in_progress", ["failed", "cancelled"])).toBe("failed");
    expect(deriveTaskState("failed", ["waiting_for_input", "failed"])).toBe("review");
  });
});
