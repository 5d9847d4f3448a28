import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { waitForSession } from "../fixture/server.js";
import { eventually, openPage, uiSuite, uniqueRepoAndTask } from "./ui-harness.js";

const badge = (page: Page) => page.locator(".inbox-button .badge").getAttribute("data-count");

type Item = { id: string; kind: string; taskId: string; state: string; readAt?: string };

/**
 * LIVE-4 / ATT-2: an inbox item clears when its cause is resolved, never because a page was
 * looked at. Opening a task page marks its items read (`POST /inbox/:id/read`): they leave the
 * badge's count and stay in the inbox, marked read, until the session is prompted again.
 */
describe("LIVE-4 opening a task page reads its inbox items; only their cause clears them (Chromium)", () => {
  const ui = uiSuite();

  it("LIVE-4 ATT-2 a finished turn's item is read (not done) when its task page opens, and done once the session is prompted again", {
    timeout: 90_000,
  }, async () => {
    const { page, pageErrors } = await openPage(ui.browser, ui.srv.url + "/");
    await eventually(() => page.locator("#live").textContent()).toBe("live");
    const { task } = await uniqueRepoAndTask(ui.srv, "Read me later");
    const s = await ui.srv.api("POST", `/tasks/${task.id}/sessions`, { prompt: "say hello" });
    await waitForSession(ui.srv.api, s.body.id, ["waiting_for_input"]);
    await eventually(() => badge(page)).toBe("1");
    const itemOf = async () => ((await ui.srv.api("GET", "/inbox?state=all")).body as Item[]).find((i) => i.taskId === task.id && i.kind === "turn_finished");

    await page.locator(`.task-card[data-task-id="${task.id}"]`).getByRole("link", { name: "Read me later" }).click();
    await page.waitForURL(`**/tasks/${task.id}`);
    // Read, still open: the badge no longer counts it, the inbox still lists it as read.
    await eventually(async () => (await itemOf())?.readAt !== undefined).toBe(true);
    expect((await itemOf())?.state).toBe("open");
    await eventually(() => badge(page)).toBe("0");
    await page.getByRole("button", { name: /^Inbox \d/ }).click();
    const row = page.locator(`.inbox-panel li[data-kind="turn_finished"]`);
    await eventually(() => row.getAttribute("data-read")).toBe("true");
    await page.keyboard.press("Escape");

    // Its cause resolved (the session prompted again): done. The item is followed by its id: the
    // second turn ends with a new turn_finished item of its own, listed first (newest first).
    const firstId = (await itemOf())!.id;
    const byId = async () => ((await ui.srv.api("GET", "/inbox?state=all")).body as Item[]).find((i) => i.id === firstId);
    expect((await ui.srv.api("POST", `/sessions/${s.body.id}/prompt`, { prompt: "say again" })).status).toBe(202);
    await eventually(async () => (await byId())?.state).toBe("done");
    expect(pageErrors).toEqual([]);
  });
});
