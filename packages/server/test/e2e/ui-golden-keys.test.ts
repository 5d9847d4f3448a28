import { execFileSync } from "node:child_process";

import type { Locator, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { makeRepo } from "../fixture/git.js";

import { eventually, openPage, serverWithCarefulAgent, shot, uiSuite } from "./ui-harness.js";

/** Whether `target` holds the keyboard focus, and shows it (`:focus-visible`, WEB-26's focus ring). */
const focused = (target: Locator) => target.evaluate((el) => el === document.activeElement && el.matches(":focus-visible"));

/**
 * Tab (forwards) until `target` has the focus: what a keyboard user does to reach an action.
 * An action Tab never reaches within `max` presses is not reachable by keyboard.
 */
async function tabTo(page: Page, target: Locator, max = 120): Promise<void> {
  await target.waitFor();
  for (let i = 0; i < max; i++) {
    if (await focused(target)) return;
    await page.keyboard.press("Tab");
  }
  throw new Error(`Tab never reached ${String(target)}`);
}

/** Ctrl-K, the command's words, Enter on the palette's first match (which must be `id`). */
async function palette(page: Page, words: string, id: string): Promise<void> {
  await page.keyboard.press("Control+k");
  const dialog = page.getByRole("dialog", { name: "Command palette" });
  await dialog.waitFor();
  await page.keyboard.type(words);
  await eventually(() => dialog.locator('[role="option"][aria-selected="true"]').getAttribute("data-command")).toBe(id);
  await page.keyboard.press("Enter");
  await dialog.waitFor({ state: "detached" });
}

/**
 * WEB-36: the golden path with the keyboard alone — no click anywhere: `c` for a new task, the
 * command palette to open it, start a session, answer the permission and review; Tab and Enter for
 * the rest. Every step's target must show a visible focus ring.
 */
describe("WEB-36 golden path by keyboard alone (Chromium 1280×800, scripted agent)", () => {
  const ui = uiSuite(() => serverWithCarefulAgent());

  it("WEB-36 c → title, Enter → palette opens the task → palette: Start a session → Tab/Enter → palette: Answer the permission → palette: Review changes → Tab to Merge…, Enter, Enter", {
    timeout: 180_000,
  }, async () => {
    const repo = await makeRepo({ name: "keys" });
    expect((await ui.srv.api("POST", "/repositories", { path: repo.path })).status).toBe(201);
    const { page, pageErrors } = await openPage(ui.browser, ui.srv.url + "/", { width: 1280, height: 800 });
    await eventually(() => page.locator("#live").textContent()).toBe("live");

    // 1. `c` opens the form with the cursor in Title; Enter creates the task.
    await page.keyboard.press("c");
    const form = page.getByRole("form", { name: "Create a task" });
    await eventually(() => form.getByLabel("Title").evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.type("Greet by keys");
    await page.keyboard.press("Enter");
    await form.getByRole("status").filter({ hasText: "Created" }).waitFor();
    await shot(page, "keys-1-created", false);

    // 2. The palette finds the task and opens it.
    const created = (await ui.srv.api("GET", "/tasks")).body as { id: string; title: string }[];
    await palette(page, "Greet by keys", `task-${created.find((t) => t.title === "Greet by keys")!.id}`);
    await page.waitForURL("**/tasks/*");
    await page.getByRole("heading", { name: "Greet by keys" }).waitFor();

    // 3. Palette: Start a session (the cursor lands on the agent); type-ahead picks `careful`,
    // Tab to the first prompt, Tab to Start session, Enter.
    await palette(page, "start a session", "start-session");
    const start = page.getByRole("form", { name: "Start a session" });
    const agent = start.getByLabel("Agent");
    expect(await agent.evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.type("careful");
    await eventually(() => agent.inputValue()).toBe("careful");
    await tabTo(page, start.getByLabel(/First prompt/));
    await page.keyboard.type('ask May I write src/app.ts?\nwrite src/app.ts export const greeting = "keys";\ncommit Greet by keys\nsay done by keys');
    await tabTo(page, start.getByRole("button", { name: "Start session" }));
    await shot(page, "keys-2-start", false);
    await page.keyboard.press("Enter");

    // 4. The permission: the palette offers it; Enter on the focused Allow.
    const ask = page.getByRole("group", { name: "Permission request" });
    await ask.getByText("May I write src/app.ts?").waitFor({ timeout: 60_000 });
    await palette(page, "answer", "answer-permission");
    const allow = ask.getByRole("button", { name: "Allow", exact: true });
    expect(await allow.evaluate((el) => el === document.activeElement)).toBe(true);
    await shot(page, "keys-3-permission", false);
    await page.keyboard.press("Enter");
    await page.locator(".session-panel .msg.role-agent", { hasText: "done by keys" }).waitFor({ timeout: 60_000 });
    await eventually(() => page.locator(".session-panel .session-state").getAttribute("data-state"), 60_000).toBe("waiting_for_input");

    // 5. Palette: Review changes; Tab to Merge…, Enter; the confirmation has the focus, Enter merges.
    await palette(page, "review", "review-changes");
    await page.waitForURL("**/review");
    await page.locator('.review-file[data-path="src/app.ts"]').waitFor();
    const land = page.getByRole("region", { name: "Review actions" });
    const merge = land.getByRole("button", { name: "Merge…" });
    await eventually(() => merge.isEnabled()).toBe(true);
    await tabTo(page, merge);
    await page.keyboard.press("Enter");
    const confirm = land.getByRole("alertdialog", { name: "Confirm merge" });
    const into = confirm.getByRole("button", { name: "Merge into main" });
    await eventually(() => focused(into)).toBe(true);
    await shot(page, "keys-4-confirm", false);
    // Escape gives the focus back to Merge…; Enter asks again.
    await page.keyboard.press("Escape");
    await confirm.waitFor({ state: "detached" });
    await eventually(() => focused(merge)).toBe(true);
    await page.keyboard.press("Enter");
    await eventually(() => focused(into)).toBe(true);
    await page.keyboard.press("Enter");
    await land.locator(".merged-state", { hasText: "is in main" }).waitFor();
    await shot(page, "keys-5-merged", false);
    expect(execFileSync("git", ["show", "main:src/app.ts"], { cwd: repo.path, encoding: "utf8" })).toBe('export const greeting = "keys";');
    expect(pageErrors).toEqual([]);
  });
});
