import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { scriptedAgentCommand } from "../../src/agents/profiles.js";
import { waitForSession } from "../fixture/server.js";
import { eventually, openPage, serverWithAgents, uiSuite, uniqueRepoAndTask } from "./ui-harness.js";

/** SBX-3: the page marks a session whose agent runs outside the sandbox; SBX-2: it counts blocks. */
describe("SBX-2 SBX-3 web UI: unconfined badge and blocked connections (Chromium)", () => {
  const ui = uiSuite(() => {
    const { command, args } = scriptedAgentCommand();
    return serverWithAgents((home) => [
      { name: "loose", command, args, env: { GROVE_SCRIPTED_STATE_DIR: join(home, "agents", "loose") }, permissionPolicy: "auto_approve", sandbox: "off" },
    ]);
  });

  it("SBX-3 an unconfined session carries the badge in the list and the panel, a confined one does not; SBX-2 the panel counts what the proxy blocked", async () => {
    const { task } = await uniqueRepoAndTask(ui.srv, "Badges");
    const loose = await ui.srv.api("POST", `/tasks/${task.id}/sessions`, { agent: "loose", prompt: "" });
    expect(loose.body.sandbox).toBe("unconfined");
    const confined = await ui.srv.api("POST", `/tasks/${task.id}/sessions`, { agent: "scripted", prompt: `run curl -sS -f -m 10 ${ui.srv.url}/api/v1/health` });
    expect(confined.body.sandbox).toBe("confined");
    await waitForSession(ui.srv.api, confined.body.id, ["waiting_for_input"], 30_000);
    const { page, pageErrors } = await openPage(ui.browser, `${ui.srv.url}/tasks/${task.id}`);
    const looseItem = page.locator(`li[data-session-id="${loose.body.id}"]`);
    const confinedItem = page.locator(`li[data-session-id="${confined.body.id}"]`);
    await looseItem.locator(".badge.unconfined", { hasText: "unconfined" }).waitFor();
    expect(await confinedItem.locator(".badge.unconfined").count()).toBe(0);
    await looseItem.locator("button").click();
    await page.locator(`.session-panel[data-session-id="${loose.body.id}"] .badge.unconfined`).waitFor();
    await confinedItem.locator("button").click();
    const panel = page.locator(`.session-panel[data-session-id="${confined.body.id}"]`);
    await eventually(() => panel.locator(".badge.blocked-count").textContent()).toBe("1 blocked");
    expect(await panel.locator(".badge.unconfined").count()).toBe(0);
    await eventually(() => panel.textContent()).toContain(`blocked: 127.0.0.1:${new URL(ui.srv.url).port}`);
    expect(pageErrors).toEqual([]);
  }, 90_000);
});
