import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { waitForSession } from "../fixture/server.js";
import { axeSerious, eventually, openPage, serverWithCarefulAgent, shot, uiSuite, uniqueRepoAndTask } from "./ui-harness.js";

const DESK = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
/** Raw state values a person should never read (WEB-20): they stay in data-state only. */
const RAW_STATES = /\b(waiting_for_input|in_progress|needs_permission|retry_wait|max_tokens)\b/;
const seen = (page: Page) => page.evaluate(() => document.body.innerText);

describe("WEB-23…26 a workbench in the person's words: header, errors, New task, themes (Chromium)", () => {
  const ui = uiSuite(() => serverWithCarefulAgent());

  it("WEB-25 the empty board shows New task at the top without scrolling, at desk and phone size; `c` opens it, but not while typing", async () => {
    for (const size of [DESK, PHONE]) {
      const { page, pageErrors } = await openPage(ui.browser, ui.srv.url + "/", size);
      const button = page.getByRole("button", { name: "New task" });
      await button.waitFor();
      const box = (await button.boundingBox())!;
      expect(box.y + box.height, `${size.width}px`).toBeLessThanOrEqual(size.height);
      expect(await page.evaluate(() => scrollY)).toBe(0);
      expect(await page.getByRole("form", { name: "Create a task" }).count()).toBe(0);

      // A `c` typed into the search box is a letter of the search, not the shortcut.
      const search = page.getByRole("searchbox", { name: "Search" });
      await search.focus();
      await page.keyboard.press("c");
      expect(await search.inputValue()).toBe("c");
      expect(await page.getByRole("form", { name: "Create a task" }).count()).toBe(0);

      // Outside a field, `c` opens the form with the cursor in its title; Escape puts it away.
      await search.fill("");
      await page.locator("h1").click();
      await page.keyboard.press("c");
      const form = page.getByRole("form", { name: "Create a task" });
      await form.waitFor();
      expect(await form.getByLabel("Title").evaluate((el) => el === document.activeElement)).toBe(true);
      expect((await form.boundingBox())!.y).toBeLessThan(size.height);
      await shot(page, `ui-new-task-${size.width}`, false);
      await page.keyboard.press("Escape");
      expect(await page.getByRole("form", { name: "Create a task" }).count()).toBe(0);
      expect(await button.evaluate((el) => el === document.activeElement)).toBe(true);
      expect(pageErrors).toEqual([]);
      await page.close();
    }
  });

  it("WEB-23 WEB-24 WEB-20 the header shows no internals (they are behind About), an error is said once, no raw state is shown", async () => {
    const { page, pageErrors } = await openPage(ui.browser, ui.srv.url + "/", DESK);
    await eventually(() => page.locator("#live").textContent()).toBe("live");
    await eventually(() => page.locator("#about-info").textContent()).toMatch(/^Grove \S+ · SQLite · runner runner_/);
    const header = () => page.locator("header.top").evaluate((el) => (el as HTMLElement).innerText);
    expect(await header()).not.toMatch(/sqlite|runner|0\.\d+\.\d+/i);
    await page.getByText("About", { exact: true }).click();
    expect(await page.locator("#about-info").isVisible()).toBe(true);
    expect(await header()).toMatch(/Grove \S+ · SQLite · runner runner_/);

    // An error: one sentence in the person's words; the code: message waits behind Details.
    await page.goto(ui.srv.url + "/repositories");
    await page.getByLabel("Path").fill("/definitely/not/here");
    await page.getByRole("button", { name: "Add repository" }).click();
    const alert = page.locator(".add-repo [role=alert]");
    await eventually(() => alert.getAttribute("data-error-code")).toBe("path_not_found");
    const shown = await alert.evaluate((el) => (el as HTMLElement).innerText);
    expect(shown).toMatch(/Nothing exists at that path/);
    expect(shown).not.toContain("path_not_found");
    expect(await alert.locator(".error-raw").isVisible()).toBe(false);
    await alert.getByText("Details").click();
    expect(await alert.locator(".error-raw").textContent()).toMatch(/^path_not_found: /);

    // A session waiting for the person (and one asking permission): words on the board and the task page.
    const { task } = await uniqueRepoAndTask(ui.srv, "Words not internals");
    const s = await ui.srv.api("POST", `/tasks/${task.id}/sessions`, { prompt: "say hi" });
    await waitForSession(ui.srv.api, s.body.id, ["waiting_for_input"]);
    const asking = await uniqueRepoAndTask(ui.srv, "Asks before writing");
    await ui.srv.api("POST", `/tasks/${asking.task.id}/sessions`, { agent: "careful", prompt: "ask may I write?\nwrite asked.txt yes" });
    // The board loads while that agent starts (WEB-19): the ask may come while the page reads.
    await page.goto(ui.srv.url + "/");
    await page.locator(`.task-card[data-task-id="${asking.task.id}"] .badge`, { hasText: "Needs your permission" }).waitFor();
    await page.locator(`.task-card[data-task-id="${task.id}"] .badge`, { hasText: "Waiting for you" }).waitFor();
    expect(await seen(page)).not.toMatch(RAW_STATES);
    await page.goto(`${ui.srv.url}/tasks/${task.id}`);
    await page.locator(".badge", { hasText: "Waiting for you" }).first().waitFor();
    expect(await seen(page)).not.toMatch(RAW_STATES);
    // Only the refused repository the test provoked.
    expect(pageErrors.filter((e) => !/400.*\/api\/v1\/repositories/.test(e))).toEqual([]);
    await page.close();
  });

  it("WEB-26 the dark theme follows the system and a remembered toggle; axe finds nothing serious on board, task page and inbox in both themes", async () => {
    const { task } = await uniqueRepoAndTask(ui.srv, "Seen in both themes");
    const s = await ui.srv.api("POST", `/tasks/${task.id}/sessions`, { prompt: "write themed.txt hello" });
    await waitForSession(ui.srv.api, s.body.id, ["waiting_for_input"]);
    const background = (page: Page) => page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
    const LIGHT_BG = "rgb(246, 248, 250)";
    const DARK_BG = "rgb(13, 17, 23)";

    for (const scheme of ["light", "dark"] as const) {
      for (const size of [DESK, PHONE]) {
        const tag = `${scheme}-${size.width}`;
        const { page, pageErrors } = await openPage(ui.browser, ui.srv.url + "/", size, scheme);
        await page.locator(`.task-card[data-task-id="${task.id}"]`).waitFor();
        expect(await background(page), tag).toBe(scheme === "dark" ? DARK_BG : LIGHT_BG);
        await shot(page, `theme-board-${tag}`, false);
        expect(await axeSerious(page), `board ${tag}`).toEqual([]);

        await page.getByRole("button", { name: /^Inbox/ }).click();
        await page.locator(".inbox-panel").waitFor();
        // The open inbox fits the screen, on a phone too.
        const panel = (await page.locator(".inbox-panel").boundingBox())!;
        expect(panel.x, tag).toBeGreaterThanOrEqual(0);
        expect(panel.x + panel.width, tag).toBeLessThanOrEqual(size.width);
        await shot(page, `theme-inbox-${tag}`, false);
        expect(await axeSerious(page), `inbox ${tag}`).toEqual([]);
        await page.keyboard.press("Escape");

        await page.goto(`${ui.srv.url}/tasks/${task.id}`);
        await page.locator(".msg").first().waitFor();
        await page.locator(`.changes tr[data-path='themed.txt']`).waitFor();
        await shot(page, `theme-task-${tag}`, false);
        expect(await axeSerious(page), `task ${tag}`).toEqual([]);
        expect(pageErrors).toEqual([]);
        await page.close();
      }
    }

    // The toggle overrides the system's choice and is remembered across a reload.
    const { page } = await openPage(ui.browser, ui.srv.url + "/", DESK, "light");
    await page.getByRole("button", { name: "Switch to the dark theme" }).click();
    expect(await background(page)).toBe(DARK_BG);
    await page.reload();
    await page.getByRole("button", { name: "Switch to the light theme" }).waitFor();
    expect(await background(page)).toBe(DARK_BG);
    expect(await page.evaluate(() => localStorage.getItem("grove.theme"))).toBe("dark");
    await page.getByRole("button", { name: "Switch to the light theme" }).click();
    expect(await background(page)).toBe(LIGHT_BG);
    await page.close();
    // Four theme × size rounds of three pages, each checked by axe: about 30 s on a quiet machine.
  }, 180_000);

  it("WEB-28 Ctrl-K opens the command palette anywhere: search finds a task and Enter opens it; New task opens the board's form; Escape closes", async () => {
    const { task } = await uniqueRepoAndTask(ui.srv, "Palette target with a rare word zanzibar");
    const { page, pageErrors } = await openPage(ui.browser, ui.srv.url + "/repositories", DESK);
    await page.getByLabel("Path").focus();
    // Even from inside a field (the palette's key has a modifier).
    await page.keyboard.press("Control+k");
    const palette = page.getByRole("dialog", { name: "Command palette" });
    const box = palette.getByRole("combobox", { name: "Command or task" });
    await box.waitFor();
    expect(await box.evaluate((el) => el === document.activeElement)).toBe(true);
    await box.fill("zanzibar");
    await palette.locator(`[role=option][data-command="task-${task.id}"]`).waitFor();
    expect(await axeSerious(page)).toEqual([]);
    await shot(page, "ui-palette-1280", false);
    await page.keyboard.press("Enter");
    await page.waitForURL(`**/tasks/${task.id}`);
    await page.locator("#task-title", { hasText: "zanzibar" }).waitFor();
    expect(await palette.count()).toBe(0);

    // New task from the task page: the board opens with its form, the cursor in Title.
    await page.keyboard.press("Control+k");
    await box.fill("new t");
    await page.keyboard.press("Enter");
    const form = page.getByRole("form", { name: "Create a task" });
    await form.waitFor();
    expect(new URL(page.url()).pathname).toBe("/");
    expect(await form.getByLabel("Title").evaluate((el) => el === document.activeElement)).toBe(true);

    // Arrow keys pick; Escape closes and gives the focus back.
    await page.keyboard.press("Control+k");
    await box.waitFor();
    await page.keyboard.press("ArrowDown");
    expect(await palette.locator("[role=option][aria-selected=true]").getAttribute("data-command")).toBe("go-board");
    await page.keyboard.press("Escape");
    expect(await palette.count()).toBe(0);
    expect(await form.getByLabel("Title").evaluate((el) => el === document.activeElement)).toBe(true);
    expect(pageErrors).toEqual([]);
    await page.close();
  });
});
