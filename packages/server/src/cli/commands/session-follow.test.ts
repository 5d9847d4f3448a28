import type { Message } from "@grove/protocol";
import { describe, expect, it } from "vitest";
import { TurnPrinter } from "./session-follow.js";

const msg = (id: string, role: Message["role"], text: string, data?: unknown): Message => ({
  id,
  sessionId: "ses_1",
  role,
  text,
  data,
  createdAt: "2026-12-01T00:00:00Z",
});

// CLI-15: what `session show --follow` writes as a turn's frames arrive.
describe("CLI-15 TurnPrinter", () => {
  const printed = (feed: (p: TurnPrinter) => void) => {
    let out = "";
    const p = new TurnPrinter((t) => (out += t));
    feed(p);
    p.end();
    return out;
  };

  it("CLI-15 a streamed message prints only what it gained, on one line, continuation lines indented", () => {
    expect(
      printed((p) => {
        p.message(msg("m1", "agent", "Hel"));
        p.message(msg("m1", "agent", "Hello"));
        p.message(msg("m1", "agent", "Hello\n"));
        p.message(msg("m1", "agent", "Hello\nworld"));
      }),
    ).toBe("agent: Hello\n       world\n");
  });

  it("CLI-15 a repeated frame prints nothing; a tool call prints each status it reaches", () => {
    expect(
      printed((p) => {
        p.message(msg("t1", "tool", "write a.txt", { status: "pending" }));
        p.message(msg("t1", "tool", "write a.txt", { status: "pending" }));
        p.message(msg("m1", "agent", "done"));
        p.message(msg("t1", "tool", "write a.txt", { status: "completed" }));
        p.message(msg("m1", "agent", "done"));
      }),
    ).toBe("tool [pending]: write a.txt\nagent: done\ntool [completed]: write a.txt\n");
  });

  it("CLI-15 a message that grows after another began continues on a line of its own", () => {
    expect(
      printed((p) => {
        p.message(msg("m1", "agent", "first"));
        p.message(msg("m2", "thought", "hmm"));
        p.message(msg("m1", "agent", "first, more"));
      }),
    ).toBe("agent: first\nthought: hmm\nagent: , more\n");
  });
});
