import { AsyncLocalStorage } from "node:async_hooks";

/**
 * The one AsyncLocalStorage of the process: for each {@link ScopedValue}, the value the current
 * async context runs with. Node 20 keeps every AsyncLocalStorage that was ever used in a list it
 * walks on each promise it creates, for as long as the process lives (an instance is never
 * released unless disabled), so one instance per store or git runner made every `await` slower
 * with each server a process had started: a test worker starts hundreds, and by its fifteenth
 * file the same test took two to five times as long. One instance costs the same however many
 * stores and runners share it (test/store/async-context.test.ts).
 */
const scopes = new AsyncLocalStorage<ReadonlyMap<ScopedValue<unknown>, unknown>>();

/**
 * A value bound to an async context, like an AsyncLocalStorage of its own: `run(value, fn)` makes
 * `get()` return `value` inside `fn` and everything it awaits or schedules, and leaves every other
 * ScopedValue's value as the caller had it.
 */
export class ScopedValue<T> {
  get(): T | undefined {
    return scopes.getStore()?.get(this as ScopedValue<unknown>) as T | undefined;
  }

  run<R>(value: T, fn: () => R): R {
    const values = new Map(scopes.getStore());
    values.set(this as ScopedValue<unknown>, value);
    return scopes.run(values, fn);
  }
}
