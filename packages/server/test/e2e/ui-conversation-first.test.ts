import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { waitForSession } from "../fixture/server.js";
import { axeSerious, openPage, shot, uiSuite, uniqueRepoAndTask } from "./ui-harness.js";

const SIZES = [
  { name: "desktop", viewport: { width: 1280, height: 800 } },
  { name: "phone", viewport: { width: 390, height: 844 } },
] as const;

/** Where the newest message, the transcript's box and the prompt box are on the screen. */
async function layout(page: Page) {
  return page.evaluate(() => {
    const rect = (el: Element | null) => {
      if (!el) return null;
      const r = el.getBoundingClientRect();
      return { top: r.top, bottom: r.bottom, left: r.left, right: r.right };
    };
    const msgs = document.querySelectorAll(".session-panel .messages .msg");
    return {
      last: rect(msgs[msgs.length - 1] ?? null),
      box: rect(document.querySelector(".session-panel .messages")),
      prompt: rect(document.querySelector(".session-panel .prompt-form")),
      title: rect(document.querySelector("#task-title")),
      scrollY: window.scrollY,
      height: window.innerHeight,
      width: window.innerWidth,
    };
  });
}

/**
 * WEB-40: the conversation is what the task page opens on. A newcomer opening a task with a
 * long conversation sees its newest message whole, above the prompt box (never under it), on a
 * desk and on a phone, in both themes.
 */
describe("WEB-40 the task page opens on the newest message (Chromium, scripted agent)", () => {
  const ui = uiSuite();

  it.each(SIZES)(
    "WEB-40 WEB-40.1 newest message fully visible above the prompt box on load, window at its top ($name)",
    { timeout: 120_000 },
    async ({ name, viewport }) => {
      const { task } = await uniqueRepoAndTask(ui.srv, `Long talk ${name}`);
      // A conversation taller than any screen: tool rows, agent words, and a last agent message.
      const lines = Array.from({ length: 14 }, (_, i) => `write notes/n${i}.txt line ${i}`);
      const s = await ui.srv.api("POST", `/tasks/${task.id}/sessions`, { prompt: [...lines, "say the **newest words** of this turn"].join("\n") });
      expect(s.status).toBe(201);
      await waitForSession(ui.srv.api, s.body.id, ["waiting_for_input"], 60_000);
      for (const theme of ["light", "dark"] as const) {
        const { page, pageErrors } = await openPage(ui.browser, `${ui.srv.url}/tasks/${task.id}`, viewport, theme);
        const newest = page.locator(".session-panel .msg.role-agent", { hasText: "newest words" });
        await newest.waitFor();
        // The page settles (fonts, the panels beside the conversation, the scroll to its end) within
        // a few frames, more on a loaded machine: wait for the newest message to sit above the prompt
        // box with the window at its top (a page that never gets there fails here), then judge it all.
        await expect
          .poll(
            async () => {
              const l = await layout(page);
              return l.last !== null && l.prompt !== null && l.last.bottom <= l.prompt.top + 1 && l.scrollY === 0;
            },
            { timeout: 15_000, interval: 100 },
          )
          .toBe(true);
        await shot(page, `conversation-${name}-${theme}`, false);
        const l = await layout(page);
        expect(l.last, "a newest message").not.toBeNull();
        expect(l.prompt, "a prompt box").not.toBeNull();
        const last = l.last!;
        const prompt = l.prompt!;
        // Inside the screen…
        expect(last.top).toBeGreaterThanOrEqual(0);
        expect(last.bottom).toBeLessThanOrEqual(l.height);
        // …inside the transcript's own box (not scrolled out of it)…
        expect(last.top).toBeGreaterThanOrEqual(l.box!.top - 1);
        expect(last.bottom).toBeLessThanOrEqual(l.box!.bottom + 1);
        // …and above the prompt box, which is itself on the screen.
        expect(last.bottom).toBeLessThanOrEqual(prompt.top + 1);
        expect(prompt.bottom).toBeLessThanOrEqual(l.height + 1);
        // WEB-40.1: only the transcript's own box scrolled; the window is at its top and the task's
        // title (with its state and Review changes beside it) is on the screen.
        expect(l.scrollY, "the window is not scrolled").toBe(0);
        expect(l.title, "a task title").not.toBeNull();
        expect(l.title!.top).toBeGreaterThanOrEqual(0);
        expect(l.title!.bottom).toBeLessThanOrEqual(l.height);
        expect(await axeSerious(page)).toEqual([]);
        expect(pageErrors).toEqual([]);
        await page.close();
      }
    },
  );
});
