import { mkdirSync } from "node:fs";
import { resolve } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repoAndTask } from "../fixture/scenario.js";
import { startTestServer, type TestServer } from "../fixture/server.js";
import { launchBrowser, SHOTS } from "./ui-harness.js";

describe("UX-2 the web page in a real browser (Chromium)", () => {
  let browser: Browser;
  let srv: TestServer;
  beforeAll(async () => {
    browser = await launchBrowser();
    srv = await startTestServer("sqlite");
  });
  afterAll(async () => {
    await browser?.close();
    await srv?.close();
  });

  it("UX-2 the page shows the server and lists tasks with their state", async () => {
    const { task } = await repoAndTask(srv, { title: "Browser visible task" });
    const page = await browser.newPage({ viewport: { width: 900, height: 500 } });
    await page.goto(srv.url + "/");
    // One card per task on the board (the UI's markup, WEB-1.1); it names the task and its state.
    await page.waitForSelector(`.task-card[data-task-id="${task.id}"]`, { timeout: 15_000 });
    const row = await page.textContent(`.task-card[data-task-id="${task.id}"]`);
    expect(row).toContain("Browser visible task");
    expect(row).toContain("To do"); // the state in words (WEB-20)
    // WEB-23: the server's identity is behind About, never in the header line.
    await page.waitForFunction(() => /runner runner_/.test(document.querySelector("#about-info")?.textContent ?? ""));
    expect(await page.textContent("#about-info")).toMatch(/^Grove \S+ · SQLite · runner runner_/);
    expect(await page.locator("#about-info").isVisible()).toBe(false);
    mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: resolve(SHOTS, "board.png") });
  });

  it("UX-2 unknown paths fall back to the page; unknown API paths stay JSON 404", async () => {
    const page = await browser.newPage();
    const res = await page.goto(srv.url + "/tasks/whatever");
    expect(res?.status()).toBe(200);
    expect(await page.title()).toBe("Grove");
    const api = await fetch(srv.url + "/api/v1/nope");
    expect(api.status).toBe(404);
    expect(((await api.json()) as { error: { code: string } }).error.code).toBe("not_found");
  });
});
