import { execFileSync } from "node:child_process";

import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { makeRepo } from "../fixture/git.js";

import { axeSerious, eventually, openPage, serverWithCarefulAgent, shot, uiSuite } from "./ui-harness.js";

const SIZES = [
  { name: "desktop", viewport: { width: 1280, height: 800 } },
  { name: "phone", viewport: { width: 390, height: 844 } },
] as const;

/** Sideways scroll of the document (a phone layout never has any). */
const overflow = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

/**
 * WEB-35: the person's whole path — new task, a session whose agent asks permission, the answer,
 * the review, the merge — on a desk and on a phone, with the same words and buttons on both.
 * The agent is the scripted one with policy "ask" (`careful`), so the permission reaches the page.
 */
describe.each(SIZES)("WEB-35 golden path at $name size ($viewport.width×$viewport.height, Chromium, scripted agent)", ({ name, viewport }) => {
  const ui = uiSuite(() => serverWithCarefulAgent());

  it(`WEB-35 new task → session → answer the permission → review → merge (${name})`, { timeout: 180_000 }, async () => {
    const repo = await makeRepo({ name: `greeter-${name}` });
    const added = await ui.srv.api("POST", "/repositories", { path: repo.path });
    expect(added.status).toBe(201);
    const { page, pageErrors } = await openPage(ui.browser, ui.srv.url + "/", viewport);
    const step = async (n: number, what: string) => {
      await shot(page, `golden-${name}-${n}-${what}`, false);
      expect(await overflow(page), `${what}: no sideways scroll`).toBeLessThanOrEqual(0);
    };

    // 1. New task from the board's top button.
    await page.getByRole("button", { name: "New task" }).first().click();
    const form = page.getByRole("form", { name: "Create a task" });
    await form.getByLabel("Title").fill("Greet the world");
    await step(1, "new-task");
    await form.getByRole("button", { name: "Create task" }).click();
    await form.getByRole("status").getByRole("link", { name: "Greet the world" }).click();
    await page.waitForURL("**/tasks/*");
    await page.getByRole("heading", { name: "Greet the world" }).waitFor();
    await step(2, "task");

    // 2. Start a session with the careful agent: it asks before it writes.
    const start = page.getByRole("form", { name: "Start a session" });
    await start.getByLabel("Agent").selectOption("careful");
    await start
      .getByLabel(/First prompt/)
      .fill('ask May I write src/app.ts?\nwrite src/app.ts export const greeting = "hello";\ncommit Greet the world\nsay wrote **the greeting**');
    await start.getByRole("button", { name: "Start session" }).click();

    // 3. The permission, answered on this layout.
    const ask = page.getByRole("group", { name: "Permission request" });
    await ask.getByText("May I write src/app.ts?").waitFor({ timeout: 60_000 });
    await ask.scrollIntoViewIfNeeded();
    await step(3, "permission");
    expect(await axeSerious(page)).toEqual([]);
    const allow = ask.getByRole("button", { name: "Allow", exact: true });
    const box = await allow.boundingBox();
    // A finger-sized target on the phone (44 px), at least WCAG 2.5.8's 24 px on the desk; inside the screen.
    expect(box!.height).toBeGreaterThanOrEqual(name === "phone" ? 44 : 24);
    expect(box!.x + box!.width).toBeLessThanOrEqual(viewport.width);
    await allow.click();
    await page.locator(".session-panel .msg.role-agent", { hasText: "wrote the greeting" }).waitFor({ timeout: 60_000 });
    await eventually(() => page.locator(".session-panel .session-state").getAttribute("data-state"), 60_000).toBe("waiting_for_input");
    expect(await ask.count()).toBe(0);
    await step(4, "answered");

    // 4. Review the change.
    await page.getByRole("link", { name: "Review changes" }).click();
    await page.waitForURL("**/review");
    const file = page.locator('.review-file[data-path="src/app.ts"]');
    await file.locator("tr.line.add", { hasText: 'export const greeting = "hello";' }).waitFor();
    await step(5, "review");

    // 5. Merge, confirmed.
    const land = page.getByRole("region", { name: "Review actions" });
    await land.getByRole("button", { name: "Merge…" }).click();
    const confirm = land.getByRole("alertdialog", { name: "Confirm merge" });
    await confirm.waitFor();
    await confirm.scrollIntoViewIfNeeded();
    await step(6, "confirm-merge");
    await confirm.getByRole("button", { name: "Merge into main" }).click();
    await land.locator(".merged-state", { hasText: "is in main" }).waitFor();
    await step(7, "merged");
    expect(execFileSync("git", ["show", "main:src/app.ts"], { cwd: repo.path, encoding: "utf8" })).toBe('export const greeting = "hello";');
    expect(pageErrors).toEqual([]);
  });
});
