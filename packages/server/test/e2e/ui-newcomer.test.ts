import { type Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { startTestServer } from "../fixture/server.js";
import { eventually, openPage, shot, uniqueRepoAndTask, uiSuite } from "./ui-harness.js";

/** What the terminal shows (xterm's DOM renderer keeps one element per row). */
const screen = (page: Page) => page.locator(".terminal-box .xterm-rows").textContent();

/**
 * What a newcomer tripped over on a local repository (no provider remote): a task through
 * session → terminal → review → merge, then the finished task on the board.
 */
describe("a newcomer's first task on a local repository (Chromium, scripted agent)", () => {
  const ui = uiSuite(() => startTestServer("sqlite", undefined, { SHELL: "/bin/bash" }));

  it("WEB-29 the terminal greets with a prompt; Resume only for a stopped agent; no Create PR without a provider; the merge dialog in words; a merged task says merged, and its Done card says Done, never 'Waiting for you' nor 'Agent idle'", async () => {
    const { task } = await uniqueRepoAndTask(ui.srv, "First task");
    const { page, pageErrors } = await openPage(ui.browser, `${ui.srv.url}/tasks/${task.id}`);
    await page.getByLabel("First prompt (optional)").fill("write src/hello.txt hello");
    await page.getByRole("button", { name: "Start session" }).click();
    // WEB-33: internals (ids, runner) wait behind a closed Details toggle; Archive is not a primary action.
    const head = page.locator(".task-head");
    expect(await head.locator("details.internals").getAttribute("open")).toBeNull();
    expect(await head.getByText(task.id, { exact: true }).isVisible()).toBe(false);
    await head.locator("details.internals summary").click();
    await head.getByText(task.id, { exact: true }).waitFor();
    expect(await page.getByRole("button", { name: "Archive", exact: true }).getAttribute("class")).toContain("secondary");

    // WEB-29.1: a new shell's prompt is on screen before any key is pressed.
    const term = page.getByRole("region", { name: "Terminal" });
    await term.locator(".terminal-state", { hasText: "connected" }).waitFor();
    await term.locator(".terminal-box").scrollIntoViewIfNeeded();
    await eventually(() => screen(page)).toMatch(/[$#]\s*$/);

    // WEB-29.2: the agent is live and waiting: nothing to resume.
    const panel = page.locator(".session-panel");
    await eventually(() => panel.locator(".session-state").getAttribute("data-state")).toBe("waiting_for_input");
    expect(await panel.getByRole("button", { name: "Resume" }).count()).toBe(0);
    await panel.getByRole("button", { name: "Restart agent" }).waitFor();

    // WEB-29.3: a local repository has no provider: no Create PR, and the page says why.
    expect((await ui.srv.api("POST", `/tasks/${task.id}/commit`, { message: "Say hello" })).status).toBe(201);
    await page.goto(`${ui.srv.url}/tasks/${task.id}/review`);
    const land = page.getByRole("region", { name: "Review actions" });
    await land.getByRole("button", { name: "Merge…" }).waitFor();
    expect(await land.getByRole("button", { name: "Create PR" }).count()).toBe(0);
    await land.locator(".no-provider", { hasText: "Pull requests need a repository added from GitHub or GitLab" }).waitFor();

    // WEB-29.4: the merge dialog names what moves where, in words.
    await land.getByRole("button", { name: "Merge…" }).click();
    const ask = land.getByRole("alertdialog", { name: "Confirm merge" });
    const words = (await ask.textContent()) ?? "";
    expect(words).toMatch(/Merge 1 commit of grove\/first-task\S* into main\?/);
    expect(words).not.toContain("the base");
    await shot(page, "newcomer-merge-dialog", false);
    await ask.getByRole("button", { name: "Merge into main" }).click();
    await land.locator(".merged-state", { hasText: "is in main" }).waitFor();

    // WEB-29.5: the task page says merged, never "0 ahead, 1 behind".
    await page.goto(`${ui.srv.url}/tasks/${task.id}`);
    const changes = page.getByRole("region", { name: "Changes" });
    await changes.locator(".branch-position", { hasText: "Merged into main" }).waitFor();
    expect(await changes.textContent()).not.toMatch(/\bahead\b|\bbehind\b/);

    // WEB-29.6: the merged task is Done; its idle agent does not wait for the person.
    await page.goto(ui.srv.url + "/");
    const card = page.locator(`.task-card[data-task-id="${task.id}"]`);
    await eventually(() => card.getAttribute("data-state")).toBe("done");
    // WEB-49.6: the Done card says its outcome; its idle agent is no news there.
    await eventually(() => card.locator(".badge.state-done").textContent()).toBe("Done");
    expect(await card.textContent()).not.toMatch(/Waiting for you|Agent idle/);
    expect(await card.locator(".badge.agent").count()).toBe(0);
    await shot(page, "newcomer-done-card", false);
    await page.goto(`${ui.srv.url}/tasks/${task.id}`);
    await eventually(() => panel.locator(".session-state").textContent()).toBe("Agent idle");
    expect(pageErrors).toEqual([]);
  });
});
