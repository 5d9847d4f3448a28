import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { waitForSession } from "../fixture/server.js";
import { eventually, openPage, serverWithAgents, uiSuite, uniqueRepoAndTask } from "./ui-harness.js";

/** AG-3.8: the page shows what an agent wrote on stderr when it failed to start. */
const SAID = "fatal: the agent's config file is unreadable";
const BROKEN = {
  name: "broken",
  command: process.execPath,
  args: [resolve(import.meta.dirname, "../agents/env-auth-agent.mjs")],
  env: { STDERR_AND_EXIT: SAID },
};

describe("AG-3 web UI: a failed agent start shows the agent's stderr (Chromium)", () => {
  const ui = uiSuite(() => serverWithAgents(() => [BROKEN]));

  it("AG-3.8 the session's error has an 'Agent output (stderr)' disclosure with the agent's own words", async () => {
    const { task } = await uniqueRepoAndTask(ui.srv, "Broken agent");
    const s = await ui.srv.api("POST", `/tasks/${task.id}/sessions`, { agent: "broken", prompt: "hi" });
    expect(s.status).toBe(201);
    await waitForSession(ui.srv.api, s.body.id, ["failed"], 30_000);
    const { page, pageErrors } = await openPage(ui.browser, `${ui.srv.url}/tasks/${task.id}`);
    await page.locator('.session-panel .last-error[data-error-code="agent_start_failed"]').waitFor();
    const stderr = page.locator(".session-panel .agent-stderr");
    expect(await stderr.locator("pre").isVisible()).toBe(false);
    await stderr.locator("summary", { hasText: "Agent output (stderr)" }).click();
    await eventually(() => stderr.locator("pre").textContent()).toContain(SAID);
    expect(pageErrors).toEqual([]);
  }, 60_000);
});
