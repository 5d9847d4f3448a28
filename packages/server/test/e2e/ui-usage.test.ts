import { describe, expect, it } from "vitest";
import { startTestServer, waitForSession } from "../fixture/server.js";
import { eventually, openPage, uiSuite, uniqueRepoAndTask } from "./ui-harness.js";

// USE-1 web UI: the card and the task page show the context ring and the cost, live; the Usage
// page (loaded on demand with its charting library) charts cost per day, agent and repository
// and lists every task's tokens and cost. Run on both databases.
describe.each(["sqlite", "postgres"] as const)("USE-1 web UI: usage on the card, the task page and the Usage page (Chromium, %s)", (kind) => {
  const ui = uiSuite(() => startTestServer(kind));

  it("USE-1: ring and cost on the card (updated live), tokens on the task page, the Usage page's charts and table", async () => {
    const { task } = await uniqueRepoAndTask(ui.srv, "Metered on the page");
    const s = await ui.srv.api("POST", `/tasks/${task.id}/sessions`, { prompt: "usage 1200 34 0.5" });
    await waitForSession(ui.srv.api, s.body.id, ["waiting_for_input"]);
    const { page, pageErrors } = await openPage(ui.browser, `${ui.srv.url}/`);
    const card = page.locator(`.task-card[data-task-id="${task.id}"]`);
    const badge = card.locator(".badge.usage");
    await badge.waitFor();
    expect(await badge.locator(".usage-cost").textContent()).toBe("$0.500");
    expect(await badge.getByRole("img").getAttribute("aria-label")).toBe("context 1 % used (1234 of 200000 tokens)");
    // The Usage page's code (and its charting library) is not part of the board's first load.
    const scripts = await page.evaluate(() =>
      Array.from(document.scripts)
        .map((x) => x.src)
        .filter(Boolean),
    );
    expect(scripts.length).toBeGreaterThan(0);
    for (const src of scripts) expect(await (await fetch(src)).text(), src).not.toContain("u-over");

    // Another turn: the card follows its usage_update without a reload, while the turn still runs.
    expect((await ui.srv.api("POST", `/sessions/${s.body.id}/prompt`, { prompt: "usage 100 10 0.75\nsleep 60000" })).status).toBe(202);
    await eventually(() => badge.locator(".usage-cost").textContent()).toBe("$0.750");
    expect((await ui.srv.api("GET", `/sessions/${s.body.id}`)).body.state).toBe("running");
    await ui.srv.api("POST", `/sessions/${s.body.id}/cancel`);
    await waitForSession(ui.srv.api, s.body.id, ["waiting_for_input"]);

    await card.getByRole("link", { name: "Metered on the page" }).click();
    const tokens = page.locator(".session-panel .usage-tokens");
    await eventually(() => tokens.textContent()).toBe("1300 in · 44 out");
    expect(await page.locator(".session-panel .badge.usage .usage-cost").textContent()).toBe("$0.750");

    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Usage" }).click();
    await page.waitForURL(`${ui.srv.url}/usage`);
    const row = page.locator(`.usage-table tr[data-task-id="${task.id}"]`);
    await row.waitFor();
    expect((await row.locator("td").allTextContents()).map((t) => t.trim())).toEqual(["Metered on the page", "1300", "44", "$0.750"]);
    for (const title of ["Cost per day", "Cost per agent", "Cost per repository"]) {
      const fig = page.locator(`figure.usage-chart[data-chart="${title}"]`);
      await fig.locator("canvas").waitFor();
      expect(await fig.getAttribute("data-points")).toBe("1");
    }
    expect(pageErrors).toEqual([]);
    await page.close();
  });
});
