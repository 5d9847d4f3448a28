import { type Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { waitForSession } from "../fixture/server.js";
import { eventually, serverWithCarefulAgent, shot, uniqueRepoAndTask, uiSuite } from "./ui-harness.js";

/** Records every browser notification the page shows and whether it was closed again. */
const SPY = `
  (() => {
    const Real = window.Notification;
    const notes = (window.__notes = []);
    class Spy extends Real {
      constructor(title, opts) {
        super(title, opts);
        const rec = { title, body: opts && opts.body, closed: false };
        notes.push(rec);
        const close = this.close.bind(this);
        this.close = () => { rec.closed = true; close(); };
      }
    }
    window.Notification = Spy;
  })();
`;

const notes = (page: Page) => page.evaluate(() => (globalThis as any).__notes as { title: string; body: string; closed: boolean }[]);
const badge = (page: Page) => page.locator(".inbox-button .badge").getAttribute("data-count");

describe("attention: notifications, inbox badge and tab title (Chromium)", () => {
  // Web notifications exist only in the full browser (the headless shell has no notification service).
  const ui = uiSuite(serverWithCarefulAgent, { full: true });

  it("ATT-1 ATT-2 a permission request raises a notification and the badge; answering clears both; turn ends and failures reach the inbox", async () => {
    const context = await ui.browser.newContext({ viewport: { width: 1400, height: 900 } });
    await context.grantPermissions(["notifications"], { origin: ui.srv.url });
    await context.addInitScript(SPY);
    const page = await context.newPage();
    const pageErrors: string[] = [];
    page.on("pageerror", (e) => pageErrors.push(String(e)));
    page.on("console", (m) => m.type() === "error" && pageErrors.push(m.text()));
    page.setDefaultTimeout(20_000);
    try {
      await page.goto(ui.srv.url + "/");
      await eventually(() => page.locator("#live").textContent()).toBe("live");
      // Opt in (the browser's permission was granted by the test).
      await page.getByRole("button", { name: /^Inbox \d/ }).click();
      await page.getByRole("button", { name: "Turn on browser notifications" }).click();
      await page.getByRole("button", { name: "Turn off browser notifications" }).waitFor();
      await page.getByRole("button", { name: /^Inbox \d/ }).click();

      const { task } = await uniqueRepoAndTask(ui.srv, "Needs a yes");
      const s = await ui.srv.api("POST", `/tasks/${task.id}/sessions`, { agent: "careful", prompt: "ask may I write?\nsleep 6000\nwrite allowed.txt yes" });
      expect(s.status).toBe(201);
      await eventually(() => badge(page)).toBe("1");
      expect(await page.title()).toBe("(1) Grove");
      await eventually(async () => (await notes(page)).length).toBe(1);
      const [n] = await notes(page);
      expect(n).toMatchObject({ title: "Grove: Permission requested", closed: false });
      expect(n!.body).toContain("Needs a yes: may I write?");
      // The card says so too.
      await eventually(() => page.locator(`.task-card[data-task-id="${task.id}"] [data-agent-state]`).getAttribute("data-agent-state")).toBe(
        "needs_permission",
      );
      await page.getByRole("button", { name: /^Inbox \d/ }).click();
      await shot(page, "ui-attention-inbox", false);

      // From the inbox to the task; answering clears the badge and closes the notification.
      await page.getByRole("link", { name: /Needs a yes: may I write\?/ }).click();
      await page.waitForURL(`**/tasks/${task.id}`);
      const ask = page.getByRole("group", { name: "Permission request" });
      await ask.getByRole("button", { name: "Allow", exact: true }).click();
      await eventually(() => badge(page)).toBe("0");
      expect(await page.title()).toBe("Grove");
      expect((await notes(page))[0]!.closed).toBe(true);
      // Cleared by the answer itself, not by the turn ending later (it still runs here).
      expect(((await ui.srv.api("GET", `/sessions/${s.body.id}`)).body as { state: string }).state).toBe("running");
      await waitForSession(ui.srv.api, s.body.id, ["waiting_for_input"]);
      // The turn ended while the person watched its task: nothing to raise.
      expect(await badge(page)).toBe("0");

      // Elsewhere (the board), a finished turn and a failed session each raise an item.
      await page.getByRole("link", { name: "← Board" }).click();
      const other = await uniqueRepoAndTask(ui.srv, "Quick turn");
      const s2 = await ui.srv.api("POST", `/tasks/${other.task.id}/sessions`, { prompt: "say hi" });
      await waitForSession(ui.srv.api, s2.body.id, ["waiting_for_input"]);
      const broken = await uniqueRepoAndTask(ui.srv, "Breaks");
      await ui.srv.api("POST", `/tasks/${broken.task.id}/sessions`, { prompt: "crash 3" });
      await eventually(() => badge(page)).toBe("2");
      expect(await page.title()).toBe("(2) Grove");
      await page.getByRole("button", { name: /^Inbox \d/ }).click();
      // What the person saw on its task page is listed too, read, until its cause clears it (LIVE-4).
      const kinds = await page
        .locator('.inbox-panel li[data-kind][data-read="false"]')
        .evaluateAll((els) => els.map((e) => e.getAttribute("data-kind")).sort());
      expect(kinds).toEqual(["agent_crashed", "turn_finished"]);
      expect(await page.locator('.inbox-panel li[data-read="true"]').count()).toBe(1);
      await page.getByRole("button", { name: "Dismiss all" }).click();
      await eventually(() => badge(page)).toBe("0");
      expect(pageErrors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
