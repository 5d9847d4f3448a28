import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { scriptedAgentCommand } from "../../src/agents/profiles.js";
import { waitForSession } from "../fixture/server.js";
import { eventually, openPage, serverWithAgents, uniqueRepoAndTask, uiSuite } from "./ui-harness.js";

// LIVE-3 on the page: a stalled turn says so, and one click restarts the agent.
describe("LIVE-3 a stalled session on the page (Chromium)", () => {
  const ui = uiSuite(() => {
    const { command, args } = scriptedAgentCommand();
    return serverWithAgents((home) => [
      { name: "quick", command, args, env: { GROVE_SCRIPTED_STATE_DIR: join(home, "agents", "quick") }, permissionPolicy: "auto_approve", stallAfterMs: 1000 },
    ]);
  });

  it("LIVE-3 the session panel shows the stalled turn and its reason; Restart agent brings the session back to waiting, with a new agent", async () => {
    const { task } = await uniqueRepoAndTask(ui.srv, "Goes quiet");
    const s = await ui.srv.api("POST", `/tasks/${task.id}/sessions`, { agent: "quick", prompt: "say hello\nhang 60000" });
    await waitForSession(ui.srv.api, s.body.id, ["failed"]);
    const oldPid = ui.srv.server.deps.agents.get(s.body.id)!.pid;
    const { page, pageErrors } = await openPage(ui.browser, ui.srv.url + `/tasks/${task.id}`);
    try {
      const panel = page.locator(`.session-panel[data-session-id="${s.body.id}"]`);
      await eventually(() => panel.locator("[data-outcome]").getAttribute("data-outcome")).toBe("stalled");
      expect(await panel.locator(".last-error").textContent()).toContain("no update from the agent for 1 s");
      await panel.getByRole("button", { name: "Restart agent" }).click();
      await eventually(() => panel.locator(".session-state").getAttribute("data-state")).toBe("waiting_for_input");
      const handle = ui.srv.server.deps.agents.get(s.body.id)!;
      expect(handle.pid).not.toBe(oldPid);
      expect(handle.resumed).toBe(true);
      expect(await panel.locator(".last-error").count()).toBe(0);
      expect(pageErrors).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
