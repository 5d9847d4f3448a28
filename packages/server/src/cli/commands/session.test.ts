import { describe, expect, it } from "vitest";
import { describeSession } from "./session.js";

const at = "2026-01-02T03:04:05.000Z";

describe("session show, human output (UX-3)", () => {
  it("UX-3 prints state, lastError, then each message as role: text with continuation lines indented", () => {
    const lines = describeSession(
      { id: "ses_1", taskId: "task_1", agent: "scripted", state: "failed", taskEnvironmentId: null, lastError: { code: "agent_crashed", message: "exit 3", at }, lastTurn: null, createdAt: at, updatedAt: at },
      [
        { id: "m1", sessionId: "ses_1", role: "user", text: "say hi\ncrash 3\n", createdAt: at },
        { id: "m2", sessionId: "ses_1", role: "agent", text: "hi", createdAt: at },
      ],
    );
    expect(lines.slice(1)).toEqual(["state: failed", "lastError: agent_crashed: exit 3", "", "user: say hi", "      crash 3", "agent: hi"]);
  });
});
