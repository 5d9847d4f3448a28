import { describe, expect, it } from "vitest";
import { waitForSession } from "../fixture/server.js";
import { axeSerious, eventually, openPage, shot, uiSuite, uniqueRepoAndTask } from "./ui-harness.js";

// USE-2 web UI: the Settings page's agent section shows an agent profile's daily cap and what its
// sessions spent today, and the person sets it there — in force at once — or turns it off.
describe("USE-2 web UI: an agent profile's daily cap on the Settings page (Chromium)", () => {
  const ui = uiSuite();

  it("USE-2: today's spend of the scripted agent is shown; Set cap under it refuses the next prompt (budget_exceeded); No cap lets it run", {
    timeout: 90_000,
  }, async () => {
    const { task } = await uniqueRepoAndTask(ui.srv, "Capped by the agent");
    const s = await ui.srv.api("POST", `/tasks/${task.id}/sessions`, { prompt: "usage 1 1 1" });
    await waitForSession(ui.srv.api, s.body.id, ["waiting_for_input"]);

    const { page, pageErrors } = await openPage(ui.browser, `${ui.srv.url}/settings`);
    const form = page.locator('.agent-profile[data-agent="scripted"]').getByRole("form", { name: "scripted daily cap" });
    await eventually(() => form.locator("[data-cap]").textContent()).toBe("none");
    expect(await form.locator("[data-spent]").textContent()).toBe("$1.00");
    expect(await form.getByRole("button", { name: "Set cap for scripted" }).isDisabled()).toBe(true);
    expect(await axeSerious(page)).toEqual([]);

    await form.getByLabel("Daily cap for scripted (USD)").fill("0.5");
    await form.getByRole("button", { name: "Set cap for scripted" }).click();
    await eventually(() => form.locator("[data-cap]").textContent()).toBe("$0.500 per day");
    await shot(page, "settings-agent-daily-cap");
    const scripted = ((await ui.srv.api("GET", "/agents")).body as { name: string; budget?: { budget: unknown } }[]).find((p) => p.name === "scripted");
    expect(scripted?.budget?.budget).toEqual({ cost: 0.5 });
    const refused = await ui.srv.api("POST", `/sessions/${s.body.id}/prompt`, { prompt: "say more" });
    expect(refused.body.error).toMatchObject({ code: "budget_exceeded", details: { scope: "agent", agent: "scripted" } });

    await form.getByRole("button", { name: "No cap for scripted" }).click();
    await eventually(() => form.locator("[data-cap]").textContent()).toBe("none");
    expect((await ui.srv.api("POST", `/sessions/${s.body.id}/prompt`, { prompt: "say more" })).status).toBe(202);
    await waitForSession(ui.srv.api, s.body.id, ["waiting_for_input"]);
    expect(pageErrors).toEqual([]);
    await page.close();
  });
});
