import { describe, expect, it } from "vitest";
import { startTestServer, waitForSession } from "../fixture/server.js";
import { axeSerious, eventually, openPage, shot, uiSuite, uniqueRepoAndTask } from "./ui-harness.js";

// USE-2 web UI: the Usage page shows the daily cap in force and today's spend, and the person
// raises it there — the refused prompt then runs, no restart — turns it off, or goes back to
// GROVE_DAILY_BUDGET.
describe("USE-2 web UI: the daily cap on the Usage page (Chromium)", () => {
  const ui = uiSuite(() => startTestServer("sqlite", undefined, { GROVE_DAILY_BUDGET: "1usd" }));

  it("USE-2: the cap from GROVE_DAILY_BUDGET is shown with today's spend; Set cap lets the refused prompt run; No cap and Back to default", async () => {
    const { task } = await uniqueRepoAndTask(ui.srv, "Capped by the day");
    const s = await ui.srv.api("POST", `/tasks/${task.id}/sessions`, { prompt: "usage 1 1 1" });
    await waitForSession(ui.srv.api, s.body.id, ["waiting_for_input"]);
    expect((await ui.srv.api("POST", `/sessions/${s.body.id}/prompt`, { prompt: "say more" })).body.error?.code).toBe("budget_exceeded");

    const { page, pageErrors } = await openPage(ui.browser, `${ui.srv.url}/usage`);
    const cap = page.getByRole("region", { name: "Daily cap" });
    await eventually(() => cap.locator("[data-cap]").textContent()).toBe("$1.00 per day (from GROVE_DAILY_BUDGET)");
    expect(await cap.locator("[data-spent]").textContent()).toBe("$1.00");
    expect(await cap.getByRole("button", { name: "Set cap" }).isDisabled()).toBe(true);
    expect(await cap.getByRole("button", { name: "Back to default" }).count()).toBe(0);
    expect(await axeSerious(page)).toEqual([]);

    await cap.getByLabel("New cap (USD per day)").fill("5");
    await cap.getByRole("button", { name: "Set cap" }).click();
    await eventually(() => cap.locator("[data-cap]").textContent()).toBe("$5.00 per day (set here)");
    await shot(page, "usage-daily-cap");
    expect((await ui.srv.api("GET", "/usage/daily-budget")).body).toMatchObject({ budget: { cost: 5 }, source: "person" });
    expect((await ui.srv.api("POST", `/sessions/${s.body.id}/prompt`, { prompt: "say more" })).status).toBe(202);
    await waitForSession(ui.srv.api, s.body.id, ["waiting_for_input"]);

    await cap.getByRole("button", { name: "No cap" }).click();
    await eventually(() => cap.locator("[data-cap]").textContent()).toBe("none (turned off here)");
    await cap.getByRole("button", { name: "Back to default" }).click();
    await eventually(() => cap.locator("[data-cap]").textContent()).toBe("$1.00 per day (from GROVE_DAILY_BUDGET)");
    expect((await ui.srv.api("GET", "/usage/daily-budget")).body.source).toBe("config");
    expect(pageErrors).toEqual([]);
    await page.close();
  });
});
