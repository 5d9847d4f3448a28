import { describe, expect, it } from "vitest";
import { ScopedValue } from "./scoped-value.js";

const tick = () => new Promise((r) => setTimeout(r, 1));

describe("ScopedValue: a value per async context, many values over one AsyncLocalStorage", () => {
  it("run binds the value for the callback and what it awaits; outside it is unset", async () => {
    const v = new ScopedValue<string>();
    expect(v.get()).toBeUndefined();
    const seen = await v.run("a", async () => {
      await tick();
      return v.get();
    });
    expect(seen).toBe("a");
    expect(v.get()).toBeUndefined();
  });

  it("values of different ScopedValues are independent, and an inner run restores the outer value after it", async () => {
    const a = new ScopedValue<number>();
    const b = new ScopedValue<number>();
    await a.run(1, async () => {
      await b.run(2, async () => {
        await tick();
        expect([a.get(), b.get()]).toEqual([1, 2]);
        await a.run(3, async () => {
          await tick();
          expect([a.get(), b.get()]).toEqual([3, 2]);
        });
        expect([a.get(), b.get()]).toEqual([1, 2]);
      });
      expect([a.get(), b.get()]).toEqual([1, undefined]);
    });
  });

  it("concurrent contexts keep their own values", async () => {
    const v = new ScopedValue<number>();
    const results = await Promise.all(
      [1, 2, 3].map((n) =>
        v.run(n, async () => {
          await tick();
          await tick();
          return v.get();
        }),
      ),
    );
    expect(results).toEqual([1, 2, 3]);
  });
});
