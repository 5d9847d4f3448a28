import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { EventBus } from "../../src/domain/event-bus.js";
import type { Deps } from "../../src/orchestrator/context.js";
import { refreshTaskState } from "../../src/orchestrator/tasks/tasks.js";
import type { Store } from "../../src/store/store.js";
import { DATABASES, openTestStore } from "../fixture/db.js";
import { seedTask, session, tick } from "./records.js";

/** STYLE "state changes a second process could race are compare-and-set": the task state. */
describe.each(DATABASES)("task state compare-and-set on %s", (kind) => {
  let store: Store;
  let cleanup: () => Promise<void>;

  beforeEach(async () => {
    ({ store, cleanup } = await openTestStore(kind));
  });
  afterEach(() => cleanup());

  it("setTaskStateIf changes the state only from the expected one and bumps updatedAt", async () => {
    const { task } = await seedTask(store);
    const at = tick();
    const moved = await store.setTaskStateIf(task.id, "todo", "in_progress", at);
    expect(moved).toMatchObject({ id: task.id, state: "in_progress", updatedAt: at });
    expect(moved?.repositories).toEqual(task.repositories);
    // The read state is stale now: refused, nothing written.
    expect(await store.setTaskStateIf(task.id, "todo", "review", tick())).toBeUndefined();
    expect(await store.getTask(task.id)).toMatchObject({ state: "in_progress", updatedAt: at });
  });

  it("a person's state=done written between the read and the write wins", async () => {
    const { task } = await seedTask(store);
    const read = (await store.getTask(task.id))!.state;
    await store.updateTask(task.id, { state: "done" }, tick());
    expect(await store.setTaskStateIf(task.id, read, "in_progress", tick())).toBeUndefined();
    expect((await store.getTask(task.id))?.state).toBe("done");
  });

  it("a missing task → undefined", async () => {
    expect(await store.setTaskStateIf("task_missing", "todo", "review", tick())).toBeUndefined();
  });

  it("refreshTaskState never overwrites a state=done that lands after its read", async () => {
    const { task } = await seedTask(store);
    await store.insertSession(session(task.id, "running"));
    // The person's PATCH lands exactly between refreshTaskState's read of the task and its write.
    const racing = new Proxy(store, {
      get(target, prop) {
        const v = Reflect.get(target, prop, target) as unknown;
        if (prop === "listSessions") {
          return async (id: string) => {
            await target.updateTask(id, { state: "done" }, tick());
            return target.listSessions(id);
          };
        }
        return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
    const deps = { store: racing, bus: new EventBus(), now: tick } as unknown as Deps;
    await refreshTaskState(deps, task.id);
    expect((await store.getTask(task.id))?.state).toBe("done");
  });
});
