import { describe, expect, it } from "vitest";
import { waitForSession } from "../fixture/server.js";
import { openPage, shot, uniqueRepoAndTask, uiSuite } from "./ui-harness.js";

describe("UX-2 the page at phone width (Chromium, 390 px)", () => {
  const ui = uiSuite();

  it("UX-2 the board and a task page with a long worktree path and a long command line never scroll sideways", async () => {
    const { task } = await uniqueRepoAndTask(ui.srv, "A task whose title and branch are long enough to wrap on a phone screen");
    const long = "x".repeat(120);
    const s = await ui.srv.api("POST", `/tasks/${task.id}/sessions`, { prompt: `write ${long}.txt ${long}` });
    await waitForSession(ui.srv.api, s.body.id, ["waiting_for_input"]);
    const phone = { width: 390, height: 844 };
    const overflow = () => document.documentElement.scrollWidth - document.documentElement.clientWidth;

    const board = await openPage(ui.browser, ui.srv.url, phone);
    await board.page.locator(`[data-task-id='${task.id}']`).first().waitFor();
    expect(await board.page.evaluate(overflow)).toBeLessThanOrEqual(0);

    const { page, pageErrors } = await openPage(ui.browser, `${ui.srv.url}/tasks/${task.id}`, phone);
    await page.locator(".msg").filter({ hasText: long }).first().waitFor();
    await page.locator(`.changes tr[data-path='${long}.txt']`).waitFor();
    await shot(page, "ui-phone-task");
    expect(await page.evaluate(overflow)).toBeLessThanOrEqual(0);
    expect(pageErrors).toEqual([]);

    // The review page: the file list and the landing actions stack instead of squeezing.
    const review = await openPage(ui.browser, `${ui.srv.url}/tasks/${task.id}/review`, phone);
    await review.page
      .locator(".file-tree a")
      .filter({ hasText: `${long}.txt` })
      .first()
      .waitFor();
    await review.page.locator(".review-files").first().waitFor();
    await shot(review.page, "ui-phone-review");
    expect(await review.page.evaluate(overflow)).toBeLessThanOrEqual(0);
    const widths = await review.page.evaluate(() => [".file-tree", ".review-files"].map((s) => document.querySelector(s)!.getBoundingClientRect().width));
    for (const w of widths) expect(w).toBeGreaterThan(300);
    expect(review.pageErrors).toEqual([]);
  });
});
