import type { Message } from "@grove/protocol";
import { describe, expect, it } from "vitest";
import { isBehind, messageTaker, TurnPrinter } from "./session-follow.js";

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

  it("CLI-15 a frame older than the history it follows prints nothing and is not kept", () => {
    let out = "";
    const printer = new TurnPrinter((t) => (out += t));
    const messages = new Map<string, Message>();
    const take = messageTaker(printer, messages);
    // The history read: the first tool done, the second running, text so far.
    take(msg("t1", "tool", "say streamed", { status: "completed" }));
    take(msg("m1", "agent", "streamed while running"));
    take(msg("t2", "tool", "sleep 2500", { status: "pending" }));
    // Frames queued while it was read, older than it.
    take(msg("t1", "tool", "say streamed", { status: "pending" }));
    take(msg("t1", "tool", "say streamed", { status: "in_progress" }));
    take(msg("m1", "agent", "streamed"));
    // Then the turn goes on.
    take(msg("t2", "tool", "sleep 2500", { status: "completed" }));
    printer.end();
    expect(out).toBe("tool [completed]: say streamed\nagent: streamed while running\ntool [pending]: sleep 2500\ntool [completed]: sleep 2500\n");
    expect(messages.get("t1")!.data).toEqual({ status: "completed" });
    expect(messages.get("m1")!.text).toBe("streamed while running");
  });

  it("CLI-15 isBehind: a tool call's status only moves forward; streamed text only grows", () => {
    const tool = (status: string) => msg("t1", "tool", "x", { status });
    expect(isBehind(tool("pending"), tool("in_progress"))).toBe(true);
    expect(isBehind(tool("in_progress"), tool("failed"))).toBe(true);
    expect(isBehind(tool("pending"), tool("interrupted"))).toBe(true);
    expect(isBehind(tool("completed"), tool("pending"))).toBe(false);
    expect(isBehind(tool("completed"), tool("completed"))).toBe(false);
    expect(isBehind(tool("in_progress"), tool("cancelled"))).toBe(true);
    // A status this client does not know (a newer agent's) counts as running: past pending, before closed.
    expect(isBehind(tool("pending"), tool("reviewing"))).toBe(true);
    expect(isBehind(tool("reviewing"), tool("completed"))).toBe(true);
    expect(isBehind(tool("reviewing"), tool("in_progress"))).toBe(false);
    expect(isBehind(msg("m1", "agent", "Hel"), msg("m1", "agent", "Hello"))).toBe(true);
    expect(isBehind(msg("m1", "agent", "Hello"), msg("m1", "agent", "Hello"))).toBe(false);
    expect(isBehind(msg("m1", "agent", "Hello!"), msg("m1", "agent", "Hello"))).toBe(false);
    expect(isBehind(msg("m1", "agent", "Bye"), msg("m1", "agent", "Hello"))).toBe(false);
  });
});
