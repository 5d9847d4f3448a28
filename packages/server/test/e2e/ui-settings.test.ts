import { describe, expect, it } from "vitest";
import { axeSerious, eventually, openPage, serverWithCarefulAgent, shot, uiSuite } from "./ui-harness.js";

/**
 * WEB-38: the Settings page lists the agents in words (ready or not, asks or not, sandbox) and
 * checks one through the API; axe finds nothing serious in either theme, on a desk and a phone.
 */
describe("WEB-38 Settings (Chromium)", () => {
  const ui = uiSuite(() => serverWithCarefulAgent());

  it("WEB-38 the header's Settings lists the agents (careful asks first), Check answers through the API; axe clean in both themes at both sizes", {
    timeout: 120_000,
  }, async () => {
    const { page, pageErrors } = await openPage(ui.browser, ui.srv.url + "/", { width: 1280, height: 800 });
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Settings" }).click();
    await page.waitForURL("**/settings");
    await page.getByRole("heading", { name: "Settings", level: 1 }).waitFor();
    const careful = page.getByRole("listitem").filter({ has: page.getByRole("heading", { name: "careful", exact: true }) });
    await careful.waitFor();
    expect(await careful.locator("[data-policy]").textContent()).toBe("Asks you before it changes files or runs commands");
    const scripted = page.locator('.agent-profile[data-agent="scripted"]');
    expect(await scripted.locator("[data-policy]").getAttribute("data-policy")).toBe("auto_approve");
    expect(await scripted.locator("[data-available]").textContent()).toBe("Ready");

    await careful.getByRole("button", { name: "Check careful" }).click();
    await eventually(() => careful.getByRole("status").textContent(), 60_000).toMatch(/^Answered in \d+ ms/);
    await shot(page, "settings-desktop-light");

    for (const size of [
      { width: 1280, height: 800 },
      { width: 390, height: 844 },
    ]) {
      for (const scheme of ["light", "dark"] as const) {
        const other = await openPage(ui.browser, ui.srv.url + "/settings", size, scheme);
        await other.page.locator('.agent-profile[data-agent="careful"]').waitFor();
        expect(await axeSerious(other.page), `${size.width} ${scheme}`).toEqual([]);
        expect(await other.page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0);
        await shot(other.page, `settings-${size.width}-${scheme}`, false);
        expect(other.pageErrors).toEqual([]);
        await other.page.close();
      }
    }
    expect(pageErrors).toEqual([]);
  });
});
