import { afterEach, describe, expect, it } from "vitest";
import { EventBus } from "../../src/domain/event-bus.js";
import type { Deps } from "../../src/orchestrator/context.js";
import { ChangesWatch } from "../../src/orchestrator/changes/changes-watch.js";
import type { Store } from "../../src/store/store.js";
import { ONE_DATABASE, openTestStore } from "../fixture/db.js";
import { repository, task } from "../store/records.js";

const silent = { info() {}, warn() {}, error() {} };

describe.each(ONE_DATABASE)("start-up watch sweep (%s)", (kind) => {
  let cleanup: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await cleanup?.();
    cleanup = undefined;
  });

  it("CHG-3 the sweep after listening reads no task that has no watchable worktree (200 tasks without an environment: no per-task query)", async () => {
    const t = await openTestStore(kind);
    cleanup = t.cleanup;
    const repo = repository();
    await t.store.insertRepository(repo);
    await t.store.transaction(async () => {
      for (let i = 0; i < 200; i++) await t.store.insertTask(task([repo.id]));
    });
    let perTask = 0;
    // Counts the per-task reads of the watcher; everything else goes to the real store.
    const store = new Proxy(t.store, {
      get(target, prop, receiver) {
        const v = Reflect.get(target, prop, receiver) as unknown;
        if (prop === "getTask" || prop === "getEnvironmentByTask")
          return (...args: [string]) => (perTask++, (target[prop] as (id: string) => Promise<unknown>)(...args));
        return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    }) as Store;
    const watch = new ChangesWatch({ store, bus: new EventBus(), log: silent, runnerId: "local", now: () => new Date().toISOString() } as unknown as Deps);
    await watch.watchAll();
    watch.dispose();
    expect(perTask).toBe(0);
    expect(watch.watchedTasks()).toEqual([]);
  });
});
