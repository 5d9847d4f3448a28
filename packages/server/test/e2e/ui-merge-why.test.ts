import { describe, expect, it } from "vitest";
import { waitForSession } from "../fixture/server.js";
import { axeSerious, eventually, openPage, shot, uiSuite, uniqueRepoAndTask } from "./ui-harness.js";

/**
 * WEB-43: a touch screen has no hover: when Merge… cannot be used, the review says why as text
 * beside the button (and the button is described by it), never only in a tooltip.
 */
describe("WEB-43 why Merge is unavailable, said beside it (Chromium, phone)", () => {
  const ui = uiSuite();

  it("WEB-43 uncommitted work: Merge… is disabled and 'Commit the uncommitted changes first.' is visible beside it", { timeout: 90_000 }, async () => {
    const { task } = await uniqueRepoAndTask(ui.srv, "Half done");
    const s = await ui.srv.api("POST", `/tasks/${task.id}/sessions`, {
      prompt: "write done.txt committed\ncommit First part\nwrite notes.txt not committed yet",
    });
    await waitForSession(ui.srv.api, s.body.id, ["waiting_for_input"]);
    const { page, pageErrors } = await openPage(ui.browser, `${ui.srv.url}/tasks/${task.id}/review`, { width: 390, height: 844 });
    const land = page.getByRole("region", { name: "Review actions" });
    const merge = land.getByRole("button", { name: "Merge…" });
    await merge.waitFor();
    const why = land.locator(".merge-why");
    await why.waitFor();
    await eventually(() => why.textContent()).toBe("Commit the uncommitted changes first.");
    expect(await why.isVisible()).toBe(true);
    expect(await merge.isDisabled()).toBe(true);
    const box = await why.boundingBox();
    expect(box!.x + box!.width).toBeLessThanOrEqual(390);
    expect(await merge.getAttribute("aria-describedby")).toBe(await why.getAttribute("id"));
    await why.scrollIntoViewIfNeeded();
    await shot(page, "merge-why-phone", false);
    expect(await axeSerious(page)).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
