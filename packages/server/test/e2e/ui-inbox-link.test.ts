import { describe, expect, it } from "vitest";
import { serverPerFile } from "../fixture/server.js";
import { axeSerious, eventually, launchBrowser, openPage, shot, uniqueRepoAndTask } from "./ui-harness.js";

// LIVE-4 WEB-27: the inbox has an address (a link, a notification, the installed app's
// shortcut): /inbox is the board with the inbox open, on a desk and on a phone.
describe("LIVE-4 the inbox's own address (Chromium)", () => {
  const files = serverPerFile("sqlite");

  it("LIVE-4 /inbox opens the board with the inbox panel open and the agent's question answerable there; the installed app offers it as a shortcut", async () => {
    const srv = await files.start();
    const { task } = await uniqueRepoAndTask(srv, "Needs an answer");
    const s = await srv.api("POST", `/tasks/${task.id}/sessions`, { prompt: 'mcp ask_user {"question":"Ship it?","choices":["yes","no"]}' });
    expect(s.status).toBe(201);
    await eventually(async () => ((await srv.api("GET", "/inbox")).body as { kind: string }[]).some((i) => i.kind === "question"), 60_000).toBe(true);
    const manifest = (await (await fetch(srv.url + "/manifest.webmanifest")).json()) as { shortcuts?: { url: string }[] };
    expect(manifest.shortcuts?.map((x) => x.url)).toContain("/inbox");
    const browser = await launchBrowser();
    try {
      for (const size of [
        { width: 1280, height: 800 },
        { width: 390, height: 844 },
      ]) {
        const { page, pageErrors } = await openPage(browser, srv.url + "/inbox", size);
        const panel = page.getByRole("region", { name: "Attention inbox" });
        await eventually(() => panel.isVisible()).toBe(true);
        // The board is under it (the card of the task is there).
        await eventually(() => page.getByRole("heading", { name: "Board", level: 1 }).isVisible()).toBe(true);
        await eventually(() => page.getByRole("link", { name: "Needs an answer" }).count()).toBeGreaterThan(0);
        await eventually(() => panel.getByText("Ship it?").count()).toBeGreaterThan(0);
        expect(await page.getByRole("button", { name: /^Inbox \d/ }).getAttribute("aria-expanded")).toBe("true");
        // Standards mode: the page starts with its doctype (quirks mode lays it out otherwise).
        expect(await page.evaluate(() => document.compatMode)).toBe("CSS1Compat");
        expect(await axeSerious(page)).toEqual([]);
        await shot(page, `ui-inbox-link-${size.width}`, false);
        expect(pageErrors).toEqual([]);
        await page.close();
      }
    } finally {
      await browser.close();
    }
  });
});
