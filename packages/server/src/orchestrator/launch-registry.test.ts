import { describe, expect, it } from "vitest";
import { LaunchRegistry } from "./launch-registry.js";

describe("LaunchRegistry: the launches a stop waits for (SES-5.9)", () => {
  it("SES-5.9 settled() is true at once with nothing followed, and once every followed launch settled (a failed one too)", async () => {
    const r = new LaunchRegistry();
    expect(await r.settled(10)).toBe(true);
    let finish!: () => void;
    const ok = r.follow(new Promise<string>((res) => (finish = () => res("up"))));
    const failed = r.follow(Promise.reject(new Error("refused")));
    const waiting = r.settled(60_000);
    finish();
    expect(await waiting).toBe(true);
    // follow() hands back the launch itself: its value and its error reach the caller unchanged.
    expect(await ok).toBe("up");
    await expect(failed).rejects.toThrow("refused");
  });

  it("SES-5.9 a launch run for a task (an environment restore) is followed too, and counted while it runs", async () => {
    const r = new LaunchRegistry();
    let finish!: () => void;
    const restore = r.run("task_1", () => new Promise<void>((res) => (finish = res)));
    expect(r.count("task_1")).toBe(1);
    expect(await r.settled(20)).toBe(false);
    finish();
    await restore;
    expect(r.count("task_1")).toBe(0);
    expect(await r.settled(20)).toBe(true);
  });

  it("SES-5.9 a launch that never settles: settled(ms) gives up after ms with false", async () => {
    const r = new LaunchRegistry();
    void r.follow(new Promise<never>(() => undefined));
    expect(await r.settled(20)).toBe(false);
  });
});
