import { spawn, spawnSync } from "node:child_process";
import { symlinkSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { isAlive, isSameProcess, readStartTime } from "../../src/agents/process-info.js";
import { cleanup, tempDir } from "./fixture.js";

afterAll(cleanup);

/** A pid that no running process has: a child that already exited and was reaped. */
function deadPid(): number {
  const r = spawnSync("true");
  return r.pid;
}

describe("process identity (SES-6 start-up stop of left-over agents)", () => {
  it("SES-5.7 reads the start time of a live process and recognizes it", () => {
    const st = readStartTime(process.pid);
    expect(st).toMatch(/^\d+$/);
    expect(isSameProcess(process.pid, st!)).toBe(true);
    expect(isAlive(process.pid)).toBe(true);
  });

  it("SES-5.7 a recycled pid (same pid, other start time) or a vanished pid is not the same process", () => {
    const st = readStartTime(process.pid)!;
    expect(isSameProcess(process.pid, String(Number(st) - 1))).toBe(false);
    const gone = deadPid();
    expect(readStartTime(gone)).toBeNull();
    expect(isSameProcess(gone, st)).toBe(false);
    expect(isAlive(gone)).toBe(false);
    expect(readStartTime(-1)).toBeNull();
  });

  it("SES-5.7 parses field 22 after the last ')' even when the command name has spaces and parentheses", async () => {
    const dir = tempDir();
    const weird = join(dir, "a) b c d e (f");
    symlinkSync("/bin/sleep", weird);
    const child = spawn(weird, ["5"], { stdio: "ignore" });
    try {
      await new Promise((r) => child.once("spawn", r));
      const st = readStartTime(child.pid!);
      // Field 22 of a process started after us is not smaller than ours; a naive split would read another field.
      expect(Number(st)).toBeGreaterThanOrEqual(Number(readStartTime(process.pid)));
      expect(isSameProcess(child.pid!, st!)).toBe(true);
    } finally {
      child.kill("SIGKILL");
    }
  });
});
