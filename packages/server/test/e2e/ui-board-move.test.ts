import { describe, expect, it } from "vitest";
import { axeSerious, eventually, openPage, shot, uniqueRepoAndTask, uiSuite } from "./ui-harness.js";

describe("board: Move to… menu and exact counts (Chromium)", () => {
  const ui = uiSuite();

  it("WEB-31 WEB-30 a card moves with its Move to… menu, by mouse and by keys alone; the column counts follow exactly", async () => {
    const { task } = await uniqueRepoAndTask(ui.srv, "Menu mover");
    const { page, pageErrors } = await openPage(ui.browser, `${ui.srv.url}/`, { width: 1280, height: 800 });
    const count = (state: string) => page.locator(`.column[data-state=${state}] .count`).textContent();
    const card = (state: string) => page.locator(`.column[data-state=${state}] .task-card[data-task-id="${task.id}"]`);
    const stateOf = async () => ((await ui.srv.api("GET", `/tasks/${task.id}`)).body as { state: string }).state;
    await card("todo").waitFor();
    await eventually(() => count("todo")).toBe("1");
    expect(await count("review")).toBe("0");

    // Mouse: the menu lists the other columns in words; a pick moves the card (PATCH /tasks/:id).
    const opener = page.getByRole("button", { name: "Move to… (Menu mover)" });
    await opener.click();
    const menu = page.getByRole("menu", { name: "Move Menu mover to" });
    expect(await menu.getByRole("menuitem").allTextContents()).toEqual(["In progress", "Review", "Done", "Failed"]);
    expect(await opener.getAttribute("aria-expanded")).toBe("true");
    expect(await axeSerious(page)).toEqual([]);
    await shot(page, "board-move-menu", false);
    await menu.getByRole("menuitem", { name: "Review" }).click();
    await card("review").waitFor();
    await eventually(stateOf).toBe("review");
    await eventually(() => count("review")).toBe("1");
    expect(await count("todo")).toBe("0");

    // Keys alone: ↓ opens with the first item focused, ↓ the next, Enter moves; the focus follows the card.
    await page.getByRole("button", { name: "Move to… (Menu mover)" }).focus();
    await page.keyboard.press("ArrowDown");
    await eventually(() => page.evaluate(() => (globalThis as any).document.activeElement?.textContent)).toBe("To do");
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("Enter");
    await card("in_progress").waitFor();
    await eventually(stateOf).toBe("in_progress");
    await eventually(() => count("in_progress")).toBe("1");
    await eventually(() => page.evaluate(() => (globalThis as any).document.activeElement?.getAttribute("aria-label"))).toBe("Move to… (Menu mover)");

    // Escape closes without a move and gives the focus back.
    await page.keyboard.press("Enter");
    await page.getByRole("menu").waitFor();
    await page.keyboard.press("Escape");
    expect(await page.getByRole("menu").count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as any).document.activeElement?.getAttribute("aria-label"))).toBe("Move to… (Menu mover)");
    expect(await stateOf()).toBe("in_progress");

    // A task moved elsewhere (another tab, the CLI) moves the counts too, without a reload.
    expect((await ui.srv.api("PATCH", `/tasks/${task.id}`, { state: "done" })).status).toBe(200);
    await eventually(() => count("done")).toBe("1");
    expect(await count("in_progress")).toBe("0");
    expect(pageErrors).toEqual([]);
  });
});
