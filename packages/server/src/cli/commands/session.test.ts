import { describe, expect, it } from "vitest";
import { describeSession } from "./session.js";

const at = "2026-01-02T03:04:05.000Z";

describe("session show, human output (UX-3)", () => {
  it("UX-3 CLI-17 prints the state and last error in words, then each message as role: text with continuation lines indented", () => {
    const lines = describeSession(
      {
        id: "ses_1",
        taskId: "task_1",
        agent: "scripted",
        state: "failed",
        taskEnvironmentId: null,
        lastError: { code: "agent_crashed", message: "exit 3", at },
        lastTurn: null,
        createdAt: at,
        updatedAt: at,
        sandbox: "confined",
        blockedConnections: 0,
      },
      [
        { id: "m1", sessionId: "ses_1", role: "user", text: "say hi\ncrash 3\n", createdAt: at },
        { id: "m2", sessionId: "ses_1", role: "agent", text: "hi", createdAt: at },
      ],
    );
    expect(lines.slice(1)).toEqual([
      "state: Failed",
      "sandbox: confined",
      "last error: agent crashed: exit 3",
      "",
      "user: say hi",
      "      crash 3",
      "agent: hi",
    ]);
  });

  it("SBX-3 an unconfined session says so, with the connections its proxy blocked", () => {
    const base = {
      id: "ses_2",
      taskId: "task_1",
      agent: "mine",
      state: "waiting_for_input" as const,
      taskEnvironmentId: null,
      lastError: null,
      lastTurn: null,
      createdAt: at,
      updatedAt: at,
    };
    expect(describeSession({ ...base, sandbox: "unconfined", blockedConnections: 0 }, [])[2]).toBe(
      "sandbox: unconfined (the agent runs without Grove's OS sandbox)",
    );
    expect(describeSession({ ...base, sandbox: "confined", blockedConnections: 2 }, [])[2]).toBe("sandbox: confined, 2 connection(s) blocked");
  });
});
