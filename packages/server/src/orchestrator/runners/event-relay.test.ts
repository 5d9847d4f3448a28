import type { EventFrame } from "@grove/protocol";
import { describe, expect, it } from "vitest";
import { EventBus } from "../../domain/event-bus.js";
import { connectEventRelay, fitFrame } from "./event-relay.js";

const frame = (type: string, data: unknown): EventFrame => ({ type, data, at: "2026-11-30T00:00:00.000Z" }) as EventFrame;

describe("ST-3 event relay between server processes", () => {
  it("ST-3 small frames go out whole; a long session.message is cut and marked truncated; other huge frames stay local", () => {
    const small = frame("task.deleted", { taskId: "t" });
    expect(fitFrame(small)).toBe(small);
    const long = frame("session.message", {
      sessionId: "s",
      taskId: "t",
      message: { id: "m", sessionId: "s", role: "agent", text: "x".repeat(20_000), data: { big: "y".repeat(5000) }, createdAt: "" },
    });
    const cut = fitFrame(long) as unknown as { data: { message: { text: string; truncated: boolean; data?: unknown } } };
    expect(cut.data.message.text).toHaveLength(2000);
    expect(cut.data.message.truncated).toBe(true);
    expect(cut.data.message.data).toBeUndefined();
    expect(fitFrame(frame("changes.updated", { taskId: "t", repositoryId: "r", changes: { blob: "z".repeat(20_000) } }))).toBeUndefined();
  });

  it("ST-3 frames of other runners are delivered locally and never sent back out; own frames are ignored on receipt", async () => {
    const a = new EventBus();
    const b = new EventBus();
    const wire: string[] = [];
    const seenA: string[] = [];
    const seenB: string[] = [];
    a.subscribe((f) => seenA.push(f.type));
    b.subscribe((f) => seenB.push(f.type));
    const ra = connectEventRelay(a, "runner_a", { publish: async (p) => void wire.push(`a:${p}`) }, () => undefined);
    const rb = connectEventRelay(b, "runner_b", { publish: async (p) => void wire.push(`b:${p}`) }, () => undefined);
    a.publish("task.deleted", { taskId: "t1" });
    expect(wire).toHaveLength(1);
    const payload = wire[0]!.slice(2);
    rb.receive(payload); // b gets a's frame
    ra.receive(payload); // a hears its own NOTIFY back
    expect(seenB).toEqual(["task.deleted"]);
    expect(seenA).toEqual(["task.deleted"]); // once: its own publish, not the echo
    expect(wire).toHaveLength(1); // b did not relay a's frame again
    rb.receive("not json");
    expect(seenB).toHaveLength(1);
  });
});
