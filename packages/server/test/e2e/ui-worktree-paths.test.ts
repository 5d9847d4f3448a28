import { describe, expect, it } from "vitest";
import { waitForSession } from "../fixture/server.js";
import { axeSerious, openPage, shot, uiSuite, uniqueRepoAndTask } from "./ui-harness.js";

const SIZES = [
  { name: "desktop", viewport: { width: 1280, height: 800 } },
  { name: "phone", viewport: { width: 390, height: 844 } },
] as const;

/**
 * WEB-45: the task page's worktree paths and branches wrap only after a "/", never inside a name,
 * and a path is shown once (no "workspace" line repeating the worktree's path).
 */
describe("WEB-45 worktree paths and branches are whole names (Chromium)", () => {
  const ui = uiSuite();

  it.each(SIZES)(
    "WEB-45 every name between slashes sits on one line, the path once, nothing sideways ($name)",
    { timeout: 90_000 },
    async ({ name, viewport }) => {
      const { task } = await uniqueRepoAndTask(ui.srv, `Say hello to the whole wide world ${name}`);
      const s = await ui.srv.api("POST", `/tasks/${task.id}/sessions`, { prompt: "say hello" });
      await waitForSession(ui.srv.api, s.body.id, ["waiting_for_input"]);
      const env = (await ui.srv.api("GET", `/sessions/${s.body.id}/workspace`)).body as { repositories: { worktreePath: string }[] };
      const path = env.repositories[0]!.worktreePath;
      const { page, pageErrors } = await openPage(ui.browser, `${ui.srv.url}/tasks/${task.id}`, viewport);
      const cell = page.locator(".environment .worktrees code", { hasText: path });
      await cell.waitFor();
      await cell.scrollIntoViewIfNeeded();
      await shot(page, `worktree-paths-${name}`, false);
      const broken = await page.evaluate(() => {
        const out: string[] = [];
        for (const code of Array.from(document.querySelectorAll(".environment td code, .environment p.meta code"))) {
          const text = code.textContent ?? "";
          let at = 0;
          for (const part of text.split(/(?<=\/)/)) {
            // One name (with its slash) in the code's text nodes; a name wrapped apart has two line boxes.
            const range = document.createRange();
            const walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
            let seen = 0;
            let start: [Node, number] | null = null;
            let end: [Node, number] | null = null;
            for (let n = walker.nextNode(); n; n = walker.nextNode()) {
              const len = n.textContent!.length;
              if (!start && at < seen + len) start = [n, at - seen];
              if (!end && at + part.length <= seen + len) end = [n, at + part.length - seen];
              seen += len;
            }
            range.setStart(...start!);
            range.setEnd(...end!);
            const lines = new Set(
              Array.from(range.getClientRects())
                .filter((r) => r.width > 0)
                .map((r) => Math.round(r.top)),
            );
            if (lines.size > 1) out.push(part);
            at += part.length;
          }
        }
        return out;
      });
      expect(broken, "names wrapped inside").toEqual([]);
      const text = (await page.locator(".environment").textContent()) ?? "";
      expect(text.split(path).length - 1, "the worktree's path is shown once").toBe(1);
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      expect(await axeSerious(page)).toEqual([]);
      expect(pageErrors).toEqual([]);
      await page.close();
    },
  );
});
