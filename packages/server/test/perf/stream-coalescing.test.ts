import { afterEach, describe, expect, it } from "vitest";
import { EventBus } from "../../src/domain/event-bus.js";
import type { Deps } from "../../src/orchestrator/context.js";
import { MAX_STREAMED_MESSAGE_CHARS, SessionRecorder } from "../../src/orchestrator/sessions/recorder.js";
import type { Store } from "../../src/store/store.js";
import { ONE_DATABASE, openTestStore } from "../fixture/db.js";
import { seedTask, session } from "../store/records.js";

const silent = { info() {}, warn() {}, error() {} };

describe.each(ONE_DATABASE)("a long message stream (%s)", (kind) => {
  let cleanup: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await cleanup?.();
    cleanup = undefined;
  });

  it("10,000 chunks are stored whole with coalesced writes and bounded messages and frames", async () => {
    const t = await openTestStore(kind);
    cleanup = t.cleanup;
    const { task } = await seedTask(t.store);
    const s = session(task.id, "running");
    await t.store.insertSession(s);

    let writes = 0;
    // Counts the rewrites of streamed messages; everything else goes to the real store.
    const store = new Proxy(t.store, {
      get(target, prop, receiver) {
        const v = Reflect.get(target, prop, receiver) as unknown;
        if (prop === "updateMessage") return (...args: Parameters<Store["updateMessage"]>) => (writes++, target.updateMessage(...args));
        return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
    const bus = new EventBus();
    let frames = 0;
    let largestFrame = 0;
    bus.subscribe((f) => {
      if (f.type !== "session.message") return;
      frames++;
      largestFrame = Math.max(largestFrame, (f.data as { message: { text: string } }).message.text.length);
    });
    const deps = { store, bus, log: silent, now: () => new Date().toISOString() } as unknown as Deps;
    const rec = new SessionRecorder(deps, s.id, task.id);

    // An agent streaming tokens faster than the database takes them (they arrive in bursts).
    const chunks = Array.from({ length: 10_000 }, (_, i) => `token-${i} `);
    for (let burst = 0; burst < 10; burst++) {
      for (const text of chunks.slice(burst * 1000, (burst + 1) * 1000)) rec.handle({ kind: "message_chunk", role: "agent", text });
      await new Promise((r) => setImmediate(r));
    }
    await rec.flush();

    const stored = await t.store.listMessages(s.id);
    expect(stored.map((m) => m.text).join("")).toBe(chunks.join(""));
    for (const m of stored) expect(m.text.length).toBeLessThan(MAX_STREAMED_MESSAGE_CHARS + 100);
    expect(stored.length).toBeGreaterThan(1);
    // One write per burst (or so), not one per chunk; frames follow writes.
    expect(writes).toBeLessThan(100);
    expect(frames).toBeLessThan(200);
    expect(largestFrame).toBeLessThan(MAX_STREAMED_MESSAGE_CHARS + 100);
  });
});
