import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { launchBrowser } from "./ui-harness.js";

/** Browsers this test worker started: its child processes running Chromium. */
function myBrowsers(): number {
  let n = 0;
  for (const pid of readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === process.pid && /chrom/.test(readFileSync(`/proc/${pid}/cmdline`, "latin1"))) n += 1;
    } catch {
      // the process ended between listing and reading
    }
  }
  return n;
}

describe("UX-2 the page tests' browser: one per test worker", () => {
  it("UX-2 two launches without options share one browser; closing one closes only the pages it opened", async () => {
    const a = await launchBrowser();
    const b = await launchBrowser();
    expect(myBrowsers()).toBe(1);
    const pa = await a.newPage();
    const ctx = await b.newContext();
    const pb = await ctx.newPage();
    expect(a.contexts()).toEqual([pa.context()]);
    expect(b.contexts()).toEqual([ctx]);

    await a.close();
    expect(pa.isClosed()).toBe(true);
    expect(pb.isClosed()).toBe(false);
    expect(a.isConnected()).toBe(true);
    await pb.setContent("<p id=x>still here</p>");
    expect(await pb.textContent("#x")).toBe("still here");
    await b.close();
    expect(pb.isClosed()).toBe(true);
    expect(myBrowsers()).toBe(1);

    // A browser with its own environment is a browser of its own, closed for real.
    const own = await launchBrowser({ ...process.env });
    expect(myBrowsers()).toBe(2);
    await own.close();
    expect(own.isConnected()).toBe(false);
    expect(myBrowsers()).toBe(1);
  });
});
