import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { waitForSession } from "../fixture/server.js";
import { applyWorkflow } from "../workflows/helpers.js";
import { openPage, shot, uiSuite, uniqueRepoAndTask } from "./ui-harness.js";

const SIZES = [
  { name: "desktop", viewport: { width: 1280, height: 800 } },
  { name: "phone", viewport: { width: 390, height: 844 } },
] as const;
/** Raw values a person should never read (WEB-20, WEB-49.2): states, column ids, action kinds. */
const RAW = /\b(waiting_for_input|in_progress|needs_permission|retry_wait|max_tokens|start_session|send_comments|typechange)\b/;
const overflow = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
const text = (page: Page) => page.evaluate(() => document.body.innerText);

/**
 * WEB-49.8: the main screens — board, task conversation, review, inbox, settings, workflows — at
 * 1280×800 and 390×844 in the light and the dark theme, saved as screenshots to look at
 * (`.grove-test/screenshots/screen-<view>-<size>-<theme>.png`); each without a sideways scroll
 * and without a raw state or id in its words.
 */
describe("WEB-49.8 the main screens at desk and phone size, light and dark (Chromium, scripted agent)", () => {
  const ui = uiSuite();

  it("WEB-49.8 board, task, review, inbox, settings and workflows: no sideways scroll, no raw words; screenshots of each", { timeout: 300_000 }, async () => {
    const { repositoryId, task } = await uniqueRepoAndTask(ui.srv, "Greet the world in every language we know");
    await applyWorkflow(
      ui.srv,
      "team",
      `repositoryId: ${repositoryId}\nsteps:\n  - id: in_progress\n    wipLimit: 3\n    onEnter:\n      - action: start_session\n        agent: scripted\n        prompt: "say hi"\n  - id: review\n`,
    );
    const s = await ui.srv.api("POST", `/tasks/${task.id}/sessions`, {
      prompt: "write src/hello.txt hello\nwrite README.md # changed\nsay wrote **the greeting** in src/hello.txt",
    });
    await waitForSession(ui.srv.api, s.body.id, ["waiting_for_input"]);

    for (const theme of ["light", "dark"] as const) {
      for (const { name, viewport } of SIZES) {
        const { page, pageErrors } = await openPage(ui.browser, ui.srv.url + "/", viewport, theme);
        const check = async (view: string) => {
          const tag = `${view} ${name} ${theme}`;
          await shot(page, `screen-${view}-${name}-${theme}`, false);
          expect(await overflow(page), `${tag}: no sideways scroll`).toBeLessThanOrEqual(0);
          expect(await text(page), `${tag}: no raw words`).not.toMatch(RAW);
        };
        await page.locator(`.task-card[data-task-id="${task.id}"]`).waitFor();
        await check("board");

        await page.goto(`${ui.srv.url}/inbox`);
        await page.locator(".inbox-panel").waitFor();
        // The open inbox hangs below the header: every page link stays in sight.
        const nav = (await page.getByRole("navigation", { name: "Main" }).boundingBox())!;
        expect((await page.locator(".inbox-panel").boundingBox())!.y, `inbox ${name} ${theme}`).toBeGreaterThanOrEqual(nav.y + nav.height);
        await check("inbox");

        await page.goto(`${ui.srv.url}/tasks/${task.id}`);
        await page.locator(".msg.role-agent", { hasText: "wrote the greeting" }).waitFor();
        // File and tool statuses in words (WEB-49.8): never "untracked", "completed".
        expect(await page.locator(".changes .badge.file-untracked").textContent()).toBe("Untracked");
        expect(await page.locator(".changes .badge.file-modified").textContent()).toBe("Modified");
        expect(await page.locator(".msg.role-tool .badge.tool-completed").first().textContent()).toBe("Done");
        await check("task");

        await page.goto(`${ui.srv.url}/tasks/${task.id}/review`);
        await page.locator('.review-file[data-path="src/hello.txt"] tr.line.add').first().waitFor();
        await check("review");

        await page.goto(`${ui.srv.url}/settings`);
        await page.getByRole("heading", { name: "Editor" }).waitFor();
        await check("settings");

        await page.goto(`${ui.srv.url}/workflows`);
        await page.locator('fieldset[data-step="in_progress"]').waitFor();
        await check("workflows");
        expect(pageErrors).toEqual([]);
        await page.close();
      }
    }
  });
});
