import { describe, expect, it } from "vitest";
import { startTestServer, waitForSession, type TestServer } from "../fixture/server.js";
import { eventually, launchBrowser, openPage, serverWithCarefulAgent, shot, uniqueRepoAndTask } from "./ui-harness.js";
import type { Page } from "playwright-core";

const badge = (page: Page) => page.locator(".inbox-button .badge").getAttribute("data-count");
const kinds = async (page: Page) => {
  await page.getByRole("button", { name: /^Inbox \d/ }).click();
  // What still needs the person: a turn that ended while its task was watched is listed read (LIVE-4).
  const found = await page.locator('.inbox-panel li[data-kind][data-read="false"]').evaluateAll((els) => els.map((e) => e.getAttribute("data-kind")).sort());
  await page.keyboard.press("Escape");
  return found;
};
/** Page errors except the refused reconnects while the server is down. */
const realErrors = (errors: string[]) =>
  errors.filter((e) => !/ERR_CONNECTION_REFUSED|WebSocket connection to .* failed|network_error|Failed to fetch/.test(e));

describe("LIVE-4 the page's inbox is the server's (Chromium)", () => {
  it("LIVE-4 items survive a reload, show in a second tab and after a server restart, and clear when answered or dismissed in any tab", async () => {
    const browser = await launchBrowser();
    let srv: TestServer = await serverWithCarefulAgent();
    const port = new URL(srv.url).port;
    try {
      const a = await openPage(browser, srv.url + "/");
      await eventually(() => a.page.locator("#live").textContent()).toBe("live");
      const asking = await uniqueRepoAndTask(srv, "Asks first");
      const s1 = await srv.api("POST", `/tasks/${asking.task.id}/sessions`, { agent: "careful", prompt: "ask may I write?\nwrite asked.txt yes" });
      const refusing = await uniqueRepoAndTask(srv, "Says no");
      const s2 = await srv.api("POST", `/tasks/${refusing.task.id}/sessions`, { prompt: "fail out of scope" });
      await waitForSession(srv.api, s2.body.id, ["waiting_for_input"]);
      await eventually(() => badge(a.page)).toBe("2");
      expect(await kinds(a.page)).toEqual(["permission", "turn_failed"]);

      // A reload: the list comes from the server again.
      await a.page.reload();
      await eventually(() => a.page.locator("#live").textContent()).toBe("live");
      await eventually(() => badge(a.page)).toBe("2");
      expect(await kinds(a.page)).toEqual(["permission", "turn_failed"]);

      // A second tab shows the same items; answering the question there clears it in both.
      const b = await openPage(browser, srv.url + `/tasks/${asking.task.id}`);
      await eventually(() => badge(b.page)).toBe("2");
      await b.page.getByRole("group", { name: "Permission request" }).getByRole("button", { name: "Allow", exact: true }).click();
      await waitForSession(srv.api, s1.body.id, ["waiting_for_input"]);
      await eventually(() => badge(a.page)).toBe("1");
      await eventually(() => badge(b.page)).toBe("1");
      expect(await kinds(a.page)).toEqual(["turn_failed"]);

      // A server restart on the same port: the item is still there, live and after a reload.
      // (The task page's own reads while the server is away are the page-restart suite's concern.)
      const bErrorsBeforeRestart = [...b.pageErrors];
      await srv.stop();
      await eventually(() => a.page.locator("#live").textContent()).toBe("reconnecting…");
      srv = await startTestServer("sqlite", { home: srv.home, databaseUrl: srv.databaseUrl }, { GROVE_PORT: port });
      await eventually(() => a.page.locator("#live").textContent()).toBe("live");
      await eventually(() => badge(a.page)).toBe("1");
      await a.page.reload();
      await eventually(() => badge(a.page)).toBe("1");
      await shot(a.page, "ui-inbox-after-restart", false);

      // Dismissed in one tab, gone in the other, and done on the server.
      await a.page.getByRole("button", { name: /^Inbox \d/ }).click();
      await a.page.getByRole("button", { name: /^Dismiss: Says no: turn refused/ }).click();
      await eventually(() => badge(a.page)).toBe("0");
      await eventually(() => badge(b.page)).toBe("0");
      // Left open: only the turn that ended while tab b watched its task, read, until its session is prompted again.
      expect(((await srv.api("GET", "/inbox")).body as { kind: string; readAt?: string }[]).map((i) => [i.kind, i.readAt !== undefined])).toEqual([
        ["turn_finished", true],
      ]);
      expect(realErrors(a.pageErrors)).toEqual([]);
      expect(realErrors(bErrorsBeforeRestart)).toEqual([]);
    } finally {
      await browser.close();
      await srv.close();
    }
    // A stop, a start and the page's reconnect backoff on a busy 2-core machine.
  }, 120_000);
});
