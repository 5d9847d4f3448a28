import { describe, expect, it } from "vitest";
import { waitForSession } from "../fixture/server.js";
import { eventually, openPage, shot, uiSuite, uniqueRepoAndTask } from "./ui-harness.js";

/**
 * LIVE-2 / WEB-24 in a newcomer's eyes: a refused turn whose agent said two things in two
 * messages. Its reason keeps the messages apart on the card, in the inbox and on the task page,
 * and the task page says the error once, in words: no `turn_refused: …` and no runner id in the
 * reading line (both wait behind Details toggles).
 */
describe("LIVE-2 WEB-24 a refused turn said once, in words (Chromium, scripted agent)", () => {
  const ui = uiSuite();

  it("LIVE-2 two agent messages of a turn stay apart in its reason (card, inbox, task page); WEB-24 WEB-33 no raw code and no runner id in the task page's text", {
    timeout: 90_000,
  }, async () => {
    const { page, pageErrors } = await openPage(ui.browser, ui.srv.url + "/", { width: 1280, height: 800 });
    await eventually(() => page.locator("#live").textContent()).toBe("live");
    const { task } = await uniqueRepoAndTask(ui.srv, "Touchy config");
    const s = await ui.srv.api("POST", `/tasks/${task.id}/sessions`, { prompt: "say I looked at the config\nfail I cannot change production" });
    expect(s.status).toBe(201);
    await waitForSession(ui.srv.api, s.body.id, ["waiting_for_input"]);
    const apart = /I looked at the config\s+I cannot change production/;

    const card = page.locator(`.task-card[data-task-id="${task.id}"]`);
    await eventually(() => card.locator(".card-turn-failure").textContent()).toMatch(apart);
    await page.getByRole("button", { name: /^Inbox \d/ }).click();
    const item = page.locator('.inbox-panel li[data-kind="turn_failed"]');
    await eventually(() => item.textContent()).toMatch(apart);
    await page.keyboard.press("Escape");

    await card.getByRole("link", { name: "Touchy config" }).click();
    await page.waitForURL(`**/tasks/${task.id}`);
    const panel = page.locator(`.session-panel[data-session-id="${s.body.id}"]`);
    const lastError = panel.locator(".last-error");
    await eventually(() => lastError.textContent()).toMatch(/^Turn refused: I looked at the config\s+I cannot change production$/);
    expect(await lastError.getAttribute("data-error-code")).toBe("turn_refused");
    // The raw code and message wait behind Details, for bug reports.
    const raw = panel.locator(".last-error-block .error-raw");
    expect(await raw.isVisible()).toBe(false);
    expect(await raw.textContent()).toMatch(/^turn_refused: /);
    await shot(page, "turn-refused-task-page", false);

    const runnerId = ((await ui.srv.api("GET", "/health")).body as { runnerId: string }).runnerId;
    await page.locator(".environment").getByText("Ready").waitFor();
    const text = await page.locator("main").innerText();
    expect(text).not.toContain("turn_refused");
    expect(text).not.toContain(runnerId);
    expect(text).not.toMatch(/configI/);
    // Still there for whoever opens Details.
    await page.locator(".environment details.internals summary").click();
    await page.locator(".environment").getByText(runnerId).waitFor();
    expect(pageErrors).toEqual([]);
  });
});
