import { afterEach, describe, expect, it } from "vitest";
import { EventBus } from "../../src/domain/event-bus.js";
import type { Deps } from "../../src/orchestrator/context.js";
import { SessionRecorder } from "../../src/orchestrator/sessions/recorder.js";
import { openTestStore } from "../fixture/db.js";
import { seedTask, session } from "../store/records.js";

const silent = { info() {}, warn() {}, error() {} };

// Storage is not what varies here (the recorder's ordering is): SQLite only.
describe("AG-1 a permission ask names its tool call", () => {
  let cleanup: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await cleanup?.();
    cleanup = undefined;
  });

  async function recorder() {
    const t = await openTestStore("sqlite");
    cleanup = t.cleanup;
    const { task } = await seedTask(t.store);
    const s = session(task.id, "running");
    await t.store.insertSession(s);
    const deps = { store: t.store, bus: new EventBus(), log: silent, now: () => new Date().toISOString() } as unknown as Deps;
    return { rec: new SessionRecorder(deps, s.id, task.id), messages: () => t.store.listMessages(s.id) };
  }

  it("AG-1 an ask that comes before the agent reports the call shows one pending tool row; the later report updates that row", async () => {
    const { rec, messages } = await recorder();
    rec.toolAsked("call-1", "echo hi > out.txt", "execute");
    await rec.flush();
    let tools = (await messages()).filter((m) => m.role === "tool");
    expect(tools.map((m) => [m.text, (m.data as { status: string }).status])).toEqual([["echo hi > out.txt", "pending"]]);

    rec.handle({ kind: "tool_call", toolCallId: "call-1", title: "Run echo hi", status: "in_progress", raw: {} });
    rec.handle({ kind: "tool_call_update", toolCallId: "call-1", status: "completed", raw: {} });
    await rec.flush();
    tools = (await messages()).filter((m) => m.role === "tool");
    expect(tools.map((m) => [m.text, (m.data as { status: string }).status])).toEqual([["Run echo hi", "completed"]]);
  });

  it("AG-1 an ask about a call already reported adds no second row and leaves its status alone", async () => {
    const { rec, messages } = await recorder();
    rec.handle({ kind: "tool_call", toolCallId: "call-2", title: "Edit a.txt", status: "in_progress", raw: {} });
    rec.toolAsked("call-2", "Edit a.txt", "edit");
    await rec.flush();
    const tools = (await messages()).filter((m) => m.role === "tool");
    expect(tools.map((m) => (m.data as { status: string }).status)).toEqual(["in_progress"]);
  });
});
