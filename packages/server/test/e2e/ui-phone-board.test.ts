import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { axeSerious, eventually, openPage, shot, uiSuite, uniqueRepoAndTask } from "./ui-harness.js";

const PHONE = { width: 390, height: 844 };

/** Each board column's height on the screen, by state. */
const columnHeights = (page: Page) =>
  page
    .locator(".column[data-state]")
    .evaluateAll((els) => Object.fromEntries(els.map((e) => [e.getAttribute("data-state"), e.getBoundingClientRect().height])));

/** Every page link of the header: inside the screen, and the nav needs no sideways scroll. */
async function headerFits(page: Page) {
  return page.evaluate((width) => {
    const nav = document.querySelector<HTMLElement>(".top nav")!;
    const cut = Array.from(nav.querySelectorAll("a")).filter((a) => {
      const r = a.getBoundingClientRect();
      return r.left < 0 || r.right > width + 0.5;
    });
    return { cut: cut.map((a) => a.textContent), scrolls: nav.scrollWidth > nav.clientWidth + 1 };
  }, PHONE.width);
}

/**
 * WEB-42: on a phone the board's columns, stacked, are as tall as what they hold (up to a
 * screen), so a board of a few tasks is one short scroll; every page link of the header is in
 * sight without scrolling it sideways. The archived view likewise.
 */
describe("WEB-42 the board and header on a phone (Chromium, 390×844)", () => {
  const ui = uiSuite();

  it("WEB-42 a column holding one card is short, an empty one shorter; the header shows every page link whole (board and archived, both themes)", {
    timeout: 90_000,
  }, async () => {
    const { task } = await uniqueRepoAndTask(ui.srv, "Only card");
    const old = await uniqueRepoAndTask(ui.srv, "Old card");
    expect((await ui.srv.api("POST", `/tasks/${old.task.id}/archive`)).status).toBe(202);
    await eventually(async () => ((await ui.srv.api("GET", `/tasks/${old.task.id}`)).body as { archivedAt: string | null }).archivedAt !== null).toBe(true);

    for (const theme of ["light", "dark"] as const) {
      const { page, pageErrors } = await openPage(ui.browser, ui.srv.url + "/", PHONE, theme);
      await page.locator(`.task-card[data-task-id="${task.id}"]`).waitFor();
      const h = await columnHeights(page);
      // One card: about its own height plus the column's heading, far from a screen.
      expect(h.todo).toBeLessThan(260);
      expect(h.review).toBeLessThan(160);
      expect(await headerFits(page)).toEqual({ cut: [], scrolls: false });
      await shot(page, `phone-board-${theme}`, false);
      expect(await axeSerious(page)).toEqual([]);

      await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Archived" }).click();
      await page.locator(`.task-card[data-task-id="${old.task.id}"]`).waitFor();
      const a = await columnHeights(page);
      expect(a.todo).toBeLessThan(260);
      expect(a.done).toBeLessThan(160);
      expect(await headerFits(page)).toEqual({ cut: [], scrolls: false });
      expect(pageErrors).toEqual([]);
      await page.close();
    }
  });
});
