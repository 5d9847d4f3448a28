import { expect } from "vitest";
import { eventually, launchBrowser, openPage } from "../e2e/ui-harness.js";

/**
 * MCP-3 with a real agent: the person answers an agent's `ask_user` question where they would,
 * in the page's inbox (Chromium). Opens the board at `url`, opens the Inbox, finds the question
 * `<taskTitle>: <question>` with one button per choice, and clicks `choice`. The page must not
 * have thrown nor asked for anything that does not exist.
 */
export async function answerInPageInbox(url: string, opts: { taskTitle: string; question: string; choices: string[]; choice: string }): Promise<void> {
  // The browser is the person's, not the agent's: it does not get the agent's refusing proxy
  // (its own background requests would count as the agent's traffic leaving loopback).
  const browser = await launchBrowser(Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(https?|no)_proxy$/i.test(k))));
  try {
    const { page, pageErrors } = await openPage(browser, url + "/");
    await eventually(() => page.locator("#live").textContent()).toBe("live");
    await page.getByRole("button", { name: /^Inbox \d/ }).click();
    const group = page.getByRole("group", { name: new RegExp(`^${escapeRegExp(`Answer: ${opts.taskTitle}: ${opts.question}`)}`) });
    await eventually(() => group.getByRole("button").allTextContents()).toEqual(opts.choices);
    await group.getByRole("button", { name: opts.choice, exact: true }).click();
    // Answered: the question leaves the inbox.
    await eventually(() => page.locator('.inbox-panel li[data-kind="question"]').count()).toBe(0);
    expect(pageErrors).toEqual([]);
  } finally {
    await browser.close();
  }
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
