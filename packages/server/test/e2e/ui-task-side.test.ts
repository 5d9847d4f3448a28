import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { waitForSession } from "../fixture/server.js";
import { axeSerious, openPage, shot, uiSuite, uniqueRepoAndTask } from "./ui-harness.js";

/** Where the side column and its Changes heading are on the screen. */
async function side(page: Page) {
  return page.evaluate(() => {
    const col = document.querySelector(".col-side")!;
    const heading = Array.from(col.querySelectorAll("h2")).find((h) => h.textContent === "Changes")!;
    const c = col.getBoundingClientRect();
    const h = heading.getBoundingClientRect();
    return {
      heading: { top: h.top, bottom: h.bottom },
      col: { top: c.top, bottom: c.bottom, scrollHeight: col.scrollHeight, clientHeight: col.clientHeight },
      position: getComputedStyle(col).position,
      scrollY: window.scrollY,
      pageHeight: document.documentElement.scrollHeight,
      height: window.innerHeight,
    };
  });
}

const settle = (page: Page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

/**
 * WEB-48: on a desk the task page's side column (Changes, files, environment) stays on the screen
 * while the person reads the conversation or scrolls the page below it: it sticks to the top of
 * the screen and scrolls inside its own box. On a phone the columns stack as before.
 */
describe("WEB-48 the task page's side column stays in view on a desk (Chromium, scripted agent)", () => {
  const ui = uiSuite();

  it("WEB-48 at 1280×800 the Changes heading is on the screen after load and after scrolling the page to its end; the column scrolls on its own; a phone's column is not sticky", {
    timeout: 120_000,
  }, async () => {
    const { task } = await uniqueRepoAndTask(ui.srv, "Many files to read");
    // Enough files that the side column is taller than the screen.
    const lines = Array.from({ length: 24 }, (_, i) => `write notes/n${i}.txt line ${i}`);
    const s = await ui.srv.api("POST", `/tasks/${task.id}/sessions`, { prompt: [...lines, "say all written"].join("\n") });
    expect(s.status).toBe(201);
    await waitForSession(ui.srv.api, s.body.id, ["waiting_for_input"], 60_000);

    for (const theme of ["light", "dark"] as const) {
      const { page, pageErrors } = await openPage(ui.browser, `${ui.srv.url}/tasks/${task.id}`, { width: 1280, height: 800 }, theme);
      await page.locator(".session-panel .msg.role-agent", { hasText: "all written" }).waitFor();
      await page.locator(".col-side .files a.file", { hasText: "n23.txt" }).waitFor();
      await settle(page);
      const loaded = await side(page);
      expect(loaded.heading.top, "the Changes heading is below the screen's top").toBeGreaterThanOrEqual(0);
      expect(loaded.heading.bottom, "the Changes heading is above the screen's bottom").toBeLessThanOrEqual(loaded.height);
      await shot(page, `task-side-desktop-${theme}`, false);

      // The page runs past the screen (session controls, terminal): scrolled to its end, the column stays.
      expect(loaded.pageHeight).toBeGreaterThan(loaded.height + 100);
      await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
      await settle(page);
      const scrolled = await side(page);
      expect(scrolled.scrollY).toBeGreaterThan(100);
      expect(scrolled.heading.top).toBeGreaterThanOrEqual(0);
      expect(scrolled.heading.bottom).toBeLessThanOrEqual(scrolled.height);
      expect(scrolled.col.bottom, "the column ends on the screen").toBeLessThanOrEqual(scrolled.height);
      expect(scrolled.position).toBe("sticky");
      await shot(page, `task-side-desktop-${theme}-scrolled`, false);

      // Taller than the screen, the column scrolls inside its own box down to its last file.
      expect(scrolled.col.scrollHeight).toBeGreaterThan(scrolled.col.clientHeight);
      const last = page.locator(".col-side .files a.file", { hasText: "n9.txt" });
      await last.scrollIntoViewIfNeeded();
      const box = (await last.boundingBox())!;
      expect(box.y + box.height).toBeLessThanOrEqual(scrolled.height);
      expect(await axeSerious(page)).toEqual([]);
      expect(pageErrors).toEqual([]);
      await page.close();
    }

    // A phone is unchanged: the columns stack and the side column scrolls with the page.
    const { page, pageErrors } = await openPage(ui.browser, `${ui.srv.url}/tasks/${task.id}`, { width: 390, height: 844 }, "light");
    await page.locator(".col-side .files a.file", { hasText: "n23.txt" }).waitFor();
    expect((await side(page)).position).toBe("static");
    expect(pageErrors).toEqual([]);
    await page.close();
  });
});
