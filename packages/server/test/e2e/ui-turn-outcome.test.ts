import { describe, expect, it } from "vitest";
import { waitForSession } from "../fixture/server.js";
import { eventually, openPage, shot, uniqueRepoAndTask, uiSuite } from "./ui-harness.js";

describe("LIVE-2 a refused turn on the page (Chromium)", () => {
  const ui = uiSuite();

  it("LIVE-2 the card says the turn was refused with the agent's reason, stays out of Review, the inbox says failed, and the session panel names the outcome", async () => {
    const { page, pageErrors } = await openPage(ui.browser, ui.srv.url + "/");
    try {
      await eventually(() => page.locator("#live").textContent()).toBe("live");
      const { task } = await uniqueRepoAndTask(ui.srv, "Refused work");
      const s = await ui.srv.api("POST", `/tasks/${task.id}/sessions`, { prompt: "fail I will not touch production" });
      expect(s.status).toBe(201);
      await waitForSession(ui.srv.api, s.body.id, ["waiting_for_input"]);

      const card = page.locator(`.task-card[data-task-id="${task.id}"]`);
      await eventually(() => card.locator("[data-agent-state]").getAttribute("data-agent-state")).toBe("failed");
      await eventually(() => card.locator(".card-turn-failure").textContent()).toBe("Turn refused: I will not touch production");
      expect(await card.getAttribute("data-state")).toBe("failed");
      await shot(page, "ui-turn-refused-card", false);

      // The inbox raised a failed turn, not "Turn finished".
      await page.getByRole("button", { name: /^Inbox \d/ }).click();
      const item = page.locator(".inbox-panel li[data-kind]");
      await eventually(() => item.getAttribute("data-kind")).toBe("turn_failed");
      expect(await item.textContent()).toContain("I will not touch production");
      expect(await page.locator('.inbox-panel li[data-kind="turn_finished"]').count()).toBe(0);
      await page.keyboard.press("Escape");

      // The task page: the session names the outcome and the reason.
      await card.getByRole("link", { name: "Refused work" }).click();
      await page.waitForURL(`**/tasks/${task.id}`);
      const panel = page.locator(`.session-panel[data-session-id="${s.body.id}"]`);
      await eventually(() => panel.locator("[data-outcome]").textContent()).toBe("Turn refused");
      expect(await panel.locator(".last-error").textContent()).toContain("I will not touch production");
      expect(pageErrors).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
