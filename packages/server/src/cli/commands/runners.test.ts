import type { Runner } from "@grove/protocol";
import { describe, expect, it } from "vitest";
import { renderRunners } from "./runners.js";

describe("grove runners, human output", () => {
  it("CLI-17 LAST SEEN is a short time, as the other tables show times, not the API's ISO string", () => {
    const runner = {
      id: "runner_1",
      host: "vm",
      url: "http://127.0.0.1:7420",
      labels: [],
      maxAgents: null,
      liveAgents: 1,
      state: "online",
      version: "0.1.0",
      lastSeenAt: "2026-12-02T12:03:19.123Z",
    } as Runner;
    const [head, row] = renderRunners([runner]);
    expect(head).toMatch(/^ID\s+STATE\s+AGENTS\s+LABELS\s+URL\s+HOST\s+LAST SEEN$/);
    expect(row).toMatch(/^runner_1\s+online\s+1\/-\s+-\s+http:\/\/127\.0\.0\.1:7420\s+vm\s+2026-12-02 12:03:19$/);
  });
});
