import { AsyncLocalStorage } from "node:async_hooks";
import { afterEach, describe, expect, it } from "vitest";
import { GitRunner } from "../../src/git/runner.js";
import { openTestStore } from "../fixture/db.js";
import { makeRepo } from "../fixture/git.js";

/**
 * ST-1 WT-6: stores and git runners bind their transaction and held repository locks to the async
 * context through one process-wide AsyncLocalStorage (domain/scoped-value.ts). Node 20 walks
 * every AsyncLocalStorage ever used on each promise it creates, for the life of the process, so
 * an instance per store or runner made each server a process started slow down every later
 * `await` (a test worker starts hundreds of servers).
 */
describe("ST-1 WT-6 stores and git runners share one AsyncLocalStorage", () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  const realRun = AsyncLocalStorage.prototype.run;
  afterEach(async () => {
    AsyncLocalStorage.prototype.run = realRun;
    for (const c of cleanups.splice(0)) await c();
  });

  it("three stores' transactions and three runners' repository locks use at most one AsyncLocalStorage", async () => {
    const used = new Set<AsyncLocalStorage<unknown>>();
    AsyncLocalStorage.prototype.run = function (this: AsyncLocalStorage<unknown>, ...args: Parameters<typeof realRun>) {
      used.add(this);
      return realRun.apply(this, args);
    } as typeof realRun;

    const repo = await makeRepo();
    cleanups.push(() => repo.cleanup());
    for (let i = 0; i < 3; i++) {
      const t = await openTestStore("sqlite");
      cleanups.push(() => t.cleanup());
      // The transaction is joined by a call inside it: the context carries it.
      expect(await t.store.transaction(async () => t.store.transaction(async () => i))).toBe(i);
      const git = new GitRunner();
      // Re-entrant: the inner call finds the lock held in its context.
      expect(await git.withRepoLock(repo.path, () => git.withRepoLock(repo.path, async () => i))).toBe(i);
    }
    expect(used.size).toBe(1);
  });
});
