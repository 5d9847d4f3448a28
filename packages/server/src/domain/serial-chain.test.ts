import { describe, expect, it } from "vitest";
import { SerialChain } from "./serial-chain.js";

describe("SerialChain (ordered writes of the recorder, the inbox and usage)", () => {
  it("runs pieces one at a time in arrival order; a failing piece is reported and the chain goes on", async () => {
    const seen: string[] = [];
    const errors: unknown[] = [];
    const chain = new SerialChain((e) => errors.push(e));
    let running = 0;
    const piece = (name: string, ms: number) => async () => {
      running++;
      expect(running).toBe(1);
      await new Promise((r) => setTimeout(r, ms));
      seen.push(name);
      running--;
    };
    chain.enqueue(piece("a", 20));
    chain.enqueue(() => {
      throw new Error("boom");
    });
    chain.enqueue(piece("b", 1));
    await chain.flush();
    expect(seen).toEqual(["a", "b"]);
    expect(errors).toHaveLength(1);
  });

  it("flush also waits for pieces queued while it waits (a coalesced write queued by an earlier one)", async () => {
    const seen: string[] = [];
    const chain = new SerialChain(() => undefined);
    chain.enqueue(async () => {
      await new Promise((r) => setTimeout(r, 5));
      chain.enqueue(async () => {
        await new Promise((r) => setTimeout(r, 5));
        seen.push("late");
      });
      seen.push("first");
    });
    await chain.flush();
    expect(seen).toEqual(["first", "late"]);
  });
});
