import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { startTestServer, waitForSession, type TestServer } from "../fixture/server.js";
import { eventually, launchBrowser, loadedResources, openPage, shot, uniqueRepoAndTask, uiSuite } from "./ui-harness.js";

/** What the terminal shows (xterm's DOM renderer keeps one element per row). */
const screen = (page: Page) => page.locator(".terminal-box .xterm-rows").textContent();
/** Whether the tab still shows Grove (not the browser's "This site can't be reached"). */
const inApp = async (page: Page) => (await page.evaluate(() => location.href)).startsWith("http") && (await page.locator("header.top #live").count()) === 1;
/** What the browser logs while the server is down: its refused requests and sockets; nothing else may appear. */
const unexpected = (errors: string[]) =>
  errors.filter(
    (e) =>
      !/ERR_CONNECTION_REFUSED|ERR_FAILED|WebSocket connection to .* failed|network_error|Failed to fetch|Failed to load resource|dynamically imported module/.test(
        e,
      ),
  );

const restartOnSamePort = (srv: TestServer) =>
  startTestServer("sqlite", { home: srv.home, databaseUrl: srv.databaseUrl }, { GROVE_PORT: new URL(srv.url).port });

// WEB-18…WEB-21 (docs/specs/web.md): the server stops and starts again while the page is open.
describe("UX-2 the page survives the server (Chromium)", () => {
  it("WEB-18 WEB-19 WEB-21 server stop/start with the page open: a card click stays in the page, no stale error after the restart, the terminal works again", async () => {
    const browser = await launchBrowser();
    let srv = await startTestServer("sqlite");
    try {
      const { task } = await uniqueRepoAndTask(srv, "Survives the server");
      const s = await srv.api("POST", `/tasks/${task.id}/sessions`, { prompt: "say hi" });
      await waitForSession(srv.api, s.body.id, ["waiting_for_input"]);
      // With the service worker (WEB-27), as a browser that installed the page has it.
      const { page, pageErrors } = await openPage(browser, srv.url + "/", { width: 1400, height: 900 }, "light", "allow");
      await eventually(() => page.locator("#live").textContent()).toBe("live");
      const card = page.locator(`.task-card[data-task-id="${task.id}"]`);
      await card.waitFor();
      // The page's prefetch links fetch the views' code (the task view and the terminal inside it).
      const fetched = () => loadedResources(page);
      await eventually(async () => (await fetched()).some((n) => /\/assets\/TaskPage-[^/]+\.js$/.test(n))).toBe(true);
      await eventually(async () => (await fetched()).some((n) => /\/assets\/TerminalPanel-[^/]+\.js$/.test(n))).toBe(true);

      // Down: the card click opens the task view inside the page, which says the server is unreachable.
      await srv.stop();
      await eventually(() => page.locator("#live").textContent()).toBe("reconnecting…");
      await card.locator("a.task-title").click();
      await page.locator("main#view [role=alert][data-error-code=network_error]").first().waitFor();
      expect(await inApp(page)).toBe(true);
      expect(new URL(page.url()).pathname).toBe(`/tasks/${task.id}`);
      await shot(page, "ui-server-down-task", false);

      // Back: the badge says live and no error from the outage is left on screen.
      srv = await restartOnSamePort(srv);
      await eventually(() => page.locator("#live").textContent()).toBe("live");
      await page.locator("#task-title", { hasText: "Survives the server" }).waitFor();
      await eventually(() => page.locator("[role=alert]").count()).toBe(0);
      await eventually(() => page.locator("#status").textContent()).toBe("");
      await eventually(() => page.locator("#about-info").textContent()).toMatch(/^Grove /);

      // The terminal (there once the task's reads came back) works; then through a second restart.
      const term = page.getByRole("region", { name: "Terminal" });
      await term.locator(".terminal-state[data-state=connected]").waitFor();
      await srv.stop();
      await term.locator(".terminal-state[data-state=closed]").waitFor();
      await term.getByRole("button", { name: "Reconnect" }).waitFor();
      // An action tried while the server is down says so, next to it…
      await page.getByRole("button", { name: "Move", exact: true }).click();
      await page.locator(".task-head [role=alert][data-error-code=network_error]").waitFor();
      srv = await restartOnSamePort(srv);
      // …and that is no longer true, nor shown, once the server is back.
      await eventually(() => page.locator("[role=alert][data-error-code=network_error]").count()).toBe(0);
      // The stream's reconnect brings the terminal back by itself.
      await term.locator(".terminal-state[data-state=connected]").waitFor({ timeout: 30_000 });
      await term.locator(".terminal-box").click();
      await page.keyboard.type("echo back-$((40 + 2))");
      await page.keyboard.press("Enter");
      await eventually(() => screen(page)).toContain("back-42");
      expect(await page.locator("[role=alert]").count()).toBe(0);
      expect(await inApp(page)).toBe(true);
      expect(unexpected(pageErrors)).toEqual([]);
    } finally {
      await browser.close();
      await srv.close();
    }
  });

  it("WEB-18 without a service worker (a first visit) the page's prefetch keeps every view's code in the browser's cache, so a click with the server down still opens the task view in the page", async () => {
    const browser = await launchBrowser();
    const srv = await startTestServer("sqlite");
    try {
      const { task } = await uniqueRepoAndTask(srv, "Prefetched while up");
      // A built asset's name carries its hash: kept without asking again. The page is revalidated.
      const index = await fetch(srv.url + "/");
      expect(index.headers.get("cache-control")).not.toMatch(/immutable/);
      const html = await index.text();
      const prefetched = [...html.matchAll(/<link rel="prefetch" href="(\/assets\/[^"]+)"/g)].map((m) => m[1]!);
      for (const view of ["TaskPage", "ReviewPage", "TerminalPanel", "UsagePage", "WorkflowsPage", "SettingsPage"])
        expect(prefetched.some((href) => href.startsWith(`/assets/${view}-`))).toBe(true);
      const asset = await fetch(srv.url + prefetched[0]);
      expect(asset.status).toBe(200);
      expect(asset.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");

      const page = await browser.newPage({ viewport: { width: 1400, height: 900 }, serviceWorkers: "block" });
      page.setDefaultTimeout(20_000);
      await page.goto(srv.url + "/");
      await eventually(() => page.locator("#live").textContent()).toBe("live");
      const card = page.locator(`.task-card[data-task-id="${task.id}"]`);
      await card.waitFor();
      // Fetched by the links, not run: the view's module is not loaded until it is opened.
      const byLink = async () =>
        (await page.evaluate(() => performance.getEntriesByType("resource").map((e) => `${(e as PerformanceResourceTiming).initiatorType} ${e.name}`))).filter(
          (e) => /\/assets\/(TaskPage|TerminalPanel)-[^/]+\.js$/.test(e),
        );
      await eventually(async () => (await byLink()).length).toBe(2);
      expect((await byLink()).every((e) => e.startsWith("link "))).toBe(true);

      await srv.stop();
      await eventually(() => page.locator("#live").textContent()).toBe("reconnecting…");
      await card.locator("a.task-title").click();
      await page.locator("main#view [role=alert][data-error-code=network_error]").first().waitFor();
      expect(await page.locator("main#view .view-unavailable").count()).toBe(0);
      expect(await inApp(page)).toBe(true);
      expect(new URL(page.url()).pathname).toBe(`/tasks/${task.id}`);
    } finally {
      await browser.close();
      await srv.close();
    }
  });

  it("WEB-18 a view whose code cannot load while the server is down says so in the page, and opens once the server is back", async () => {
    const browser = await launchBrowser();
    let srv = await startTestServer("sqlite");
    try {
      const { task } = await uniqueRepoAndTask(srv, "Review while down");
      // page.route never sees a request the service worker makes (WEB-27: once it controls the
      // page it fetches the assets itself), so without the worker the blocked chunk stays blocked.
      const page = await browser.newPage({ viewport: { width: 1400, height: 900 }, serviceWorkers: "block" });
      page.setDefaultTimeout(20_000);
      // The review view's code never arrives (as if the server went down before it was fetched).
      let blocked = true;
      await page.route(/\/assets\/ReviewPage-[^/]+\.js$/, (route) => (blocked ? route.abort("connectionrefused") : route.continue()));
      await page.goto(srv.url + "/");
      await eventually(() => page.locator("#live").textContent()).toBe("live");
      await srv.stop();
      await eventually(() => page.locator("#live").textContent()).toBe("reconnecting…");
      await page.evaluate((path) => {
        history.pushState(null, "", path);
        dispatchEvent(new PopStateEvent("popstate"));
      }, `/tasks/${task.id}/review`);
      const unavailable = page.locator("main#view .view-unavailable[role=alert]");
      await unavailable.waitFor();
      expect(await unavailable.textContent()).toContain("The review could not be loaded: the server cannot be reached.");
      expect(await inApp(page)).toBe(true);

      blocked = false;
      srv = await restartOnSamePort(srv);
      // Back: the view opens by itself.
      await page.locator("main#view h1", { hasText: "Review" }).waitFor({ timeout: 30_000 });
      expect(await unavailable.count()).toBe(0);
      expect(new URL(page.url()).pathname).toBe(`/tasks/${task.id}/review`);
    } finally {
      await browser.close();
      await srv.close();
    }
  });
});

// WEB-20 WEB-22: states in the person's words; an archived task says archived.
describe("UX-2 states in the person's words (Chromium)", () => {
  const ui = uiSuite();

  it("WEB-20 the card, the task page and the session say 'Waiting for you', never waiting_for_input", async () => {
    const { task } = await uniqueRepoAndTask(ui.srv, "Words not codes");
    const s = await ui.srv.api("POST", `/tasks/${task.id}/sessions`, { prompt: "say hi" });
    await waitForSession(ui.srv.api, s.body.id, ["waiting_for_input"]);
    const { page, pageErrors } = await openPage(ui.browser, ui.srv.url + "/");
    const card = page.locator(`.task-card[data-task-id="${task.id}"]`);
    await card.locator(".badge.agent[data-agent-state=waiting]", { hasText: "Waiting for you" }).waitFor();
    expect(await page.locator("main").textContent()).not.toMatch(/waiting_for_input|in_progress|needs_permission/);
    await card.locator("a.task-title").click();
    const badge = page.locator(".session-panel .session-state");
    await eventually(() => badge.getAttribute("data-state")).toBe("waiting_for_input");
    expect(await badge.textContent()).toBe("Waiting for you");
    expect(await page.locator(`.session-list li[data-session-id="${s.body.id}"] .badge`).textContent()).toBe("Waiting for you");
    const taskState = await page.locator("#task-state").getAttribute("data-state");
    expect(await page.locator("#task-state").textContent()).toBe(
      { todo: "To do", in_progress: "In progress", review: "Review", done: "Done", failed: "Failed" }[taskState!],
    );
    expect(await page.locator("main").textContent()).not.toMatch(/waiting_for_input|in_progress/);
    expect(pageErrors).toEqual([]);
  });

  it("WEB-22 an archived task says archived: no green 'ready', no 'worktree is missing', its session's agent stopped", async () => {
    const { task } = await uniqueRepoAndTask(ui.srv, "Archived words");
    const s = await ui.srv.api("POST", `/tasks/${task.id}/sessions`, { prompt: "say hi" });
    await waitForSession(ui.srv.api, s.body.id, ["waiting_for_input"]);
    expect((await ui.srv.api("POST", `/tasks/${task.id}/archive`)).status).toBe(202);
    await eventually(async () => ((await ui.srv.api("GET", `/cleanup-jobs?taskId=${task.id}`)).body as { state: string }[])[0]?.state).toBe("succeeded");
    const { page, pageErrors } = await openPage(ui.browser, `${ui.srv.url}/tasks/${task.id}`);
    await page.locator(".archived-banner").waitFor();
    await page.locator(".environment [data-env-state=archived]", { hasText: "Archived" }).waitFor();
    expect(await page.locator(".environment .env-ready").count()).toBe(0);
    const main = () => page.locator("main").textContent();
    expect(await main()).not.toMatch(/worktree is missing/i);
    expect(await main()).not.toMatch(/Waiting for you|waiting_for_input/);
    const badge = page.locator(".session-panel .session-state");
    expect(await badge.getAttribute("data-state")).toBe("stopped");
    expect(await badge.textContent()).toBe("Agent stopped");
    await shot(page, "ui-archived-words");
    expect(pageErrors).toEqual([]);
  });
});
