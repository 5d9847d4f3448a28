import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { waitForSession } from "../fixture/server.js";
import { axeSerious, eventually, openPage, shot, uiSuite, uniqueRepoAndTask } from "./ui-harness.js";

const badge = (page: Page) => page.locator(".inbox-button .badge").getAttribute("data-count");

/**
 * LIVE-4.8: one count everywhere. The header's badge counts exactly the inbox's "Needs you" list;
 * an item already seen is listed apart under "Seen, not counted"; a task moved to Done takes its
 * turn items out of the inbox altogether.
 */
describe("LIVE-4.8 the inbox's badge and list agree (Chromium)", () => {
  const ui = uiSuite();

  it("LIVE-4.8 the badge counts the Needs you list; a seen item is under Seen; Done clears the task's items", { timeout: 90_000 }, async () => {
    const { page, pageErrors } = await openPage(ui.browser, ui.srv.url + "/");
    await eventually(() => page.locator("#live").textContent()).toBe("live");
    const seen = await uniqueRepoAndTask(ui.srv, "Seen already");
    const fresh = await uniqueRepoAndTask(ui.srv, "Fresh news");
    for (const t of [seen.task, fresh.task]) {
      const s = await ui.srv.api("POST", `/tasks/${t.id}/sessions`, { prompt: "say hello" });
      await waitForSession(ui.srv.api, s.body.id, ["waiting_for_input"]);
    }
    await eventually(() => badge(page)).toBe("2");
    // Reading one (its task page opened) leaves the badge at 1 and the first list at 1.
    await page.goto(`${ui.srv.url}/tasks/${seen.task.id}`);
    await page.locator("#task-title").waitFor();
    await eventually(() => badge(page)).toBe("1");
    await page.getByRole("button", { name: /^Inbox \d/ }).click();
    const needs = page.locator(".inbox-panel .inbox-needs li");
    const seenRows = page.locator(".inbox-panel .inbox-seen li");
    await eventually(() => needs.count()).toBe(1);
    expect(await needs.first().textContent()).toContain("Fresh news");
    await eventually(() => seenRows.count()).toBe(1);
    expect(await seenRows.first().textContent()).toContain("Seen already");
    await expect(page.getByRole("heading", { name: "Seen, not counted" }).isVisible()).resolves.toBe(true);
    await shot(page, "inbox-count-seen", false);
    expect(await axeSerious(page)).toEqual([]);

    // The fresh task moved to Done: its turn item resolves, the badge and the list say nothing needs you.
    expect((await ui.srv.api("PATCH", `/tasks/${fresh.task.id}`, { state: "done" })).status).toBe(200);
    await eventually(() => badge(page)).toBe("0");
    await eventually(() => needs.count()).toBe(0);
    await eventually(() => page.locator(".inbox-panel .empty").textContent()).toBe("Nothing needs you right now.");
    expect(pageErrors).toEqual([]);
  });
});
