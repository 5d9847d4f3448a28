import { describe, expect, it } from "vitest";
import { makeRepo } from "../fixture/git.js";
import { startTestServer } from "../fixture/server.js";
import { eventually, launchBrowser, openPage, uniqueRepoAndTask, shot, uiSuite } from "./ui-harness.js";

describe("UX-2 web UI: board, task form, repositories (Chromium)", () => {
  const ui = uiSuite();

  it("WEB-10.1 the repositories page adds a local repository and shows API errors as code: message", async () => {
    const repo = await makeRepo({ name: "widget" });
    const { page, pageErrors } = await openPage(ui.browser, ui.srv.url + "/repositories");
    await page.getByLabel("Path").fill("/definitely/not/here");
    await page.getByRole("button", { name: "Add repository" }).click();
    await eventually(() => page.locator(".add-repo [role=alert]").getAttribute("data-error-code")).toBe("path_not_found");
    // The person's words first, the API's code: message in small print.
    expect(await page.locator(".add-repo [role=alert] .error-text").textContent()).toMatch(/Nothing exists at that path/);
    expect(await page.locator(".add-repo [role=alert] .error-raw").textContent()).toMatch(/^path_not_found: /);

    await page.getByLabel("Path").fill(repo.path);
    await page.getByRole("button", { name: "Add repository" }).click();
    await page.waitForSelector("table.repos tr:has-text('widget')");
    expect(await page.locator(".add-repo [role=alert]").count()).toBe(0);
    const listed = (await ui.srv.api("GET", "/repositories")).body as { id: string; path: string }[];
    expect(listed.map((r) => r.path)).toContain(repo.path);

    // The same path again is refused by the API, and the page says why.
    await page.getByLabel("Path").fill(repo.path);
    await page.getByRole("button", { name: "Add repository" }).click();
    await eventually(() => page.locator(".add-repo [role=alert]").getAttribute("data-error-code")).toBe("repository_exists");

    // A remote URL: the URL fields replace the path field; an http URL to a non-loopback host is refused.
    await page.getByLabel("Source").selectOption("url");
    expect(await page.getByLabel("Path").isVisible()).toBe(false);
    await page.getByLabel("URL").fill("http://example.com/owner/name.git");
    await page.getByLabel("Provider").selectOption("github");
    await page.getByLabel("Access token (optional)").fill("secret-token");
    await page.getByRole("button", { name: "Add repository" }).click();
    await eventually(() => page.locator(".add-repo [role=alert] .error-raw").textContent()).toMatch(/^\w+: .+/);
    expect(((await ui.srv.api("GET", "/repositories")).body as unknown[]).length).toBe(1);
    await shot(page, "ui-repositories");
    // Refusals answer 4xx by design: those are the only failed requests.
    expect(pageErrors.filter((e) => !/^http 4\d\d POST .*\/api\/v1\/repositories$/.test(e) && !/Failed to load resource/.test(e))).toEqual([]);
  });

  it("WEB-1.1 WEB-2.1 the form creates a task; it appears live in the todo column, and an API error stays visible", async () => {
    const repo = await makeRepo({ name: "formrepo" });
    const r = await ui.srv.api("POST", "/repositories", { path: repo.path });
    const { page, pageErrors } = await openPage(ui.browser, ui.srv.url + "/");
    await page.waitForSelector(".board .column[data-state=todo]");
    // Every column of the state machine is on the board.
    expect(await page.locator(".board .column").evaluateAll((cols) => cols.map((c) => c.getAttribute("data-state")))).toEqual([
      "todo",
      "in_progress",
      "review",
      "done",
      "failed",
    ]);

    await page.getByRole("button", { name: "New task" }).click();
    const form = page.getByRole("form", { name: "Create a task" });
    await form.getByLabel("Title").fill("Typed into the form");
    await form.getByLabel("Description").fill("from the browser");
    await form.getByLabel("Repository", { exact: true }).selectOption(r.body.id);
    await form.getByLabel("Base branch").fill("no-such-branch");
    await form.getByRole("button", { name: "Create task" }).click();
    await eventually(() => form.locator("[role=alert]").getAttribute("data-error-code")).toBe("base_branch_not_found");
    expect(((await ui.srv.api("GET", "/tasks")).body as unknown[]).length).toBe(0);

    await form.getByLabel("Base branch").fill("main");
    await form.getByRole("button", { name: "Create task" }).click();
    const card = page.locator(".column[data-state=todo] .task-card", { hasText: "Typed into the form" });
    await card.waitFor();
    const tasks = (await ui.srv.api("GET", "/tasks")).body as { id: string; title: string; description: string; repositories: { baseBranch: string }[] }[];
    expect(tasks).toHaveLength(1);
    expect(tasks[0]).toMatchObject({ title: "Typed into the form", description: "from the browser", repositories: [{ baseBranch: "main" }] });
    expect(await card.getAttribute("data-task-id")).toBe(tasks[0]!.id);
    await shot(page, "ui-board");
    expect(pageErrors.filter((e) => !/^http 400 POST .*\/api\/v1\/tasks$/.test(e) && !/Failed to load resource/.test(e))).toEqual([]);
  });

  it("WEB-1.2 the board follows task events without a reload: created, moved, deleted", async () => {
    const { page, pageErrors } = await openPage(ui.browser, ui.srv.url + "/");
    await page.waitForSelector(".board .column[data-state=todo]");
    await eventually(() => page.locator(".column[aria-busy=true]").count()).toBe(0);
    // task.summary frames carry the cards: no list is read again for an event.
    const listReads: string[] = [];
    page.on("request", (r) => /\/api\/v1\/tasks(\?|$)/.test(r.url()) && r.method() === "GET" && listReads.push(r.url()));
    const { task } = await uniqueRepoAndTask(ui.srv, "Made by the API");
    const card = page.locator(`.task-card[data-task-id="${task.id}"]`);
    await card.waitFor();
    expect(await card.getAttribute("data-state")).toBe("todo");
    await ui.srv.api("PATCH", `/tasks/${task.id}`, { state: "done" });
    await page.locator(`.column[data-state=done] .task-card[data-task-id="${task.id}"]`).waitFor();
    expect(await page.locator(`.column[data-state=todo] .task-card[data-task-id="${task.id}"]`).count()).toBe(0);
    expect((await ui.srv.api("DELETE", `/tasks/${task.id}`)).status).toBe(202);
    await card.waitFor({ state: "detached" });
    expect(listReads).toEqual([]);
    expect(pageErrors).toEqual([]);
  });

  it("WEB-3.1 WEB-1.3 a card opens /tasks/:id (a reload stays there); the task moves to done; archived tasks are their own view", async () => {
    const { task } = await uniqueRepoAndTask(ui.srv, "Routed task");
    const { page, pageErrors } = await openPage(ui.browser, ui.srv.url + "/");
    await page.locator(`.task-card[data-task-id="${task.id}"] a`).click();
    await page.waitForURL(`**/tasks/${task.id}`);
    await eventually(() => page.locator("#task-title").textContent()).toBe("Routed task");
    await page.reload();
    await eventually(() => page.locator("#task-title").textContent()).toBe("Routed task");
    expect(await page.locator("#task-state").getAttribute("data-state")).toBe("todo");

    await page.getByLabel("State").selectOption("done");
    await page.getByRole("button", { name: "Move" }).click();
    await eventually(() => page.locator("#task-state").getAttribute("data-state")).toBe("done");
    expect((await ui.srv.api("GET", `/tasks/${task.id}`)).body.state).toBe("done");

    // Archive from the task page, then find it in the Archived view (and only there).
    await page.getByRole("button", { name: "Archive", exact: true }).click();
    await page.locator(".archived-banner").getByRole("button", { name: "Unarchive" }).waitFor();
    await page.getByRole("link", { name: "← Board" }).click();
    await page.waitForURL(ui.srv.url + "/");
    await page.locator(".board .column").first().waitFor();
    const { task: live } = await uniqueRepoAndTask(ui.srv, "Still live");
    await page.locator(`.task-card[data-task-id="${live.id}"]`).waitFor();
    expect(await page.locator(`.task-card[data-task-id="${task.id}"]`).count()).toBe(0);
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Archived" }).click();
    await page.locator(`.task-card[data-task-id="${task.id}"]`, { hasText: "archived" }).waitFor();
    expect(await page.locator(`.task-card[data-task-id="${live.id}"]`).count()).toBe(0);
    expect(await page.locator(".task-card .drag-handle").count()).toBe(0);
    expect(pageErrors).toEqual([]);
  });

  it("WEB-3.2 a click anywhere on a card (its branch line) opens the task; its Move to… button and Drag handle stay their own controls", async () => {
    const { task } = await uniqueRepoAndTask(ui.srv, "Card body click");
    const { page, pageErrors } = await openPage(ui.browser, ui.srv.url + "/");
    const card = page.locator(`.task-card[data-task-id="${task.id}"]`);
    await card.waitFor();
    await card.getByRole("button", { name: "Move to… (Card body click)" }).click();
    await page.getByRole("menu", { name: "Move Card body click to" }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/");
    await page.keyboard.press("Escape");
    // The Drag handle under the mouse is the handle, not the card's link (the mouse at its place,
    // as a person clicks: whatever lies on top there takes it).
    const handle = (await card.locator(".drag-handle").boundingBox())!;
    await page.mouse.click(handle.x + handle.width / 2, handle.y + handle.height / 2);
    expect(await page.evaluate(() => (globalThis as any).document.activeElement?.className)).toContain("drag-handle");
    expect(new URL(page.url()).pathname).toBe("/");
    // A click where the branch is written: the task opens.
    const branch = (await card.locator(".card-repos").boundingBox())!;
    await page.mouse.click(branch.x + branch.width / 2, branch.y + branch.height / 2);
    await page.waitForURL(`**/tasks/${task.id}`);
    await eventually(() => page.locator("#task-title").textContent()).toBe("Card body click");
    expect(pageErrors).toEqual([]);
  });

  it("WEB-12.1 an unknown task id shows the API error, not a blank page", async () => {
    const { page } = await openPage(ui.browser, ui.srv.url + "/tasks/task_nope");
    await eventually(() => page.locator("main [role=alert]").first().getAttribute("data-error-code")).toBe("not_found");
    await page.getByRole("button", { name: "Back to the board" }).click();
    await page.waitForURL(ui.srv.url + "/");
  });

  it("WEB-13.1 every form control has a label and every action is a <button>", async () => {
    await uniqueRepoAndTask(ui.srv, "A11y task");
    const tasks = (await ui.srv.api("GET", "/tasks")).body as { id: string }[];
    for (const path of ["/", "/repositories", `/tasks/${tasks[0]!.id}`]) {
      const { page } = await openPage(ui.browser, ui.srv.url + path);
      // The board's form opens from its New task button (WEB-25).
      if (path === "/") await page.getByRole("button", { name: "New task" }).click();
      await page.waitForSelector("main form");
      const unlabelled = await page
        .locator("main input, main select, main textarea")
        .evaluateAll((els) => els.filter((el) => (el as any).labels?.length === 0 && !el.getAttribute("aria-label")).map((el) => el.outerHTML));
      expect(unlabelled, path).toEqual([]);
      const clickableNonButtons = await page.locator("main [onclick], main div[role=button], main span[role=button]").count();
      expect(clickableNonButtons, path).toBe(0);
      await page.close();
    }
  });
});

describe("UX-2 web UI with GROVE_AUTH_TOKEN", () => {
  it("WEB-14.1 /?token= becomes the HttpOnly cookie; the page and its event stream work without the token in any URL", async () => {
    const browser = await launchBrowser();
    const srv = await startTestServer("sqlite", undefined, { GROVE_AUTH_TOKEN: "tok-123" });
    try {
      const { page } = await openPage(browser, srv.url + "/");
      await eventually(() => page.locator("#status").getAttribute("data-error-code")).toBe("unauthorized");
      expect(await page.locator("#status").textContent()).toMatch(/^Server unavailable: The server needs its access token/);

      const sockets: string[] = [];
      page.on("websocket", (ws) => sockets.push(ws.url()));
      await page.goto(srv.url + "/?token=tok-123");
      await eventually(() => page.locator("#about-info").textContent()).toMatch(/^Grove \S+ · SQLite/);
      expect(await page.locator("#status").textContent()).toBe("");
      expect(new URL(page.url()).search).toBe("");
      await eventually(() => page.locator("#live").textContent()).toBe("live");
      // The page never holds the token: not in storage, not in a socket URL.
      expect(await page.evaluate(() => JSON.stringify((globalThis as any).localStorage))).not.toContain("tok-123");
      expect(sockets.length).toBeGreaterThan(0);
      expect(sockets.filter((u) => u.includes("tok-123"))).toEqual([]);
      const { task } = await uniqueRepoAndTask(srv, "Seen with a token");
      await page.locator(`.task-card[data-task-id="${task.id}"]`).waitFor();
      await page.reload();
      await page.locator(`.task-card[data-task-id="${task.id}"]`).waitFor();
    } finally {
      await browser.close();
      await srv.close();
    }
  });
});

describe("UX-2 web UI across a server restart", () => {
  it("WEB-12.2 the event stream reconnects after a restart on the same port and the board stays live", async () => {
    const browser = await launchBrowser();
    let srv = await startTestServer("sqlite");
    const port = new URL(srv.url).port;
    try {
      const { page, pageErrors } = await openPage(browser, srv.url + "/");
      await eventually(() => page.locator("#live").textContent()).toBe("live");
      const { task: before } = await uniqueRepoAndTask(srv, "Before the restart");
      await page.locator(`.task-card[data-task-id="${before.id}"]`).waitFor();

      // Before the stop the page has logged nothing at all.
      expect(pageErrors, pageErrors.join("\n")).toEqual([]);
      await srv.stop();
      await eventually(() => page.locator("#live").textContent()).toBe("reconnecting…");
      srv = await startTestServer("sqlite", { home: srv.home, databaseUrl: srv.databaseUrl }, { GROVE_PORT: port });
      // The page's reconnect delay doubles up to 10 s while the server is down, so a slow restart
      // on a loaded machine can leave it ~10 s before the next attempt: wait for two of those.
      await eventually(() => page.locator("#live").textContent(), 45_000).toBe("live");
      const { task: after } = await uniqueRepoAndTask(srv, "After the restart");
      await page.locator(`.task-card[data-task-id="${after.id}"]`).waitFor();
      expect(await page.locator(`.task-card[data-task-id="${before.id}"]`).count()).toBe(1);
      // From the stop on, the browser logs its refused reconnect attempts, a read that reached the
      // stopping server its 503 (a stopping server answers 503 to new requests), and a read the stop
      // cut off its network error (net::ERR_EMPTY_RESPONSE, …: the stop closes every socket left
      // after a short grace); no other answer, and no script error.
      const unexpected = pageErrors.filter(
        (e) => !/net::ERR_[A-Z_]+|WebSocket connection to .* failed|network_error|Failed to fetch|^http 503 GET |status of 503 \(Service Unavailable\)/.test(e),
      );
      expect(unexpected, unexpected.join("\n")).toEqual([]);
    } finally {
      await browser.close();
      await srv.close();
    }
  });
});
