import { describe, expect, it } from "vitest";
import { waitForSession } from "../fixture/server.js";
import { axeSerious, eventually, openPage, PLANNING_AGENT, serverWithAgents, shot, uiSuite, uniqueRepoAndTask } from "./ui-harness.js";

describe("AG-2 on the task page: mode switch, slash commands, latest plan (Chromium, ACP agent)", () => {
  const ui = uiSuite(() => serverWithAgents(() => [PLANNING_AGENT]));

  it("AG-2 UX-2 the task page shows the agent's mode with a switch, its slash commands as prompt hints and its latest plan", async () => {
    const { srv, browser } = ui;
    const { task } = await uniqueRepoAndTask(srv, "Plan the work");
    const s = await srv.api("POST", `/tasks/${task.id}/sessions`, { agent: "planner", prompt: "read the code\nwrite the fix\nrun the tests" });
    expect(s.status).toBe(201);
    await waitForSession(srv.api, s.body.id, ["waiting_for_input"]);
    const { page, pageErrors } = await openPage(browser, `${srv.url}/tasks/${task.id}`);

    // The plan: three entries, the first completed.
    const plan = page.getByRole("region", { name: /^Plan/ });
    await eventually(() =>
      plan
        .locator(".plan-entry")
        .evaluateAll((els) =>
          els.map((e) => `${e.getAttribute("data-status")}: ${e.textContent?.replace(e.querySelector(".plan-status")?.textContent ?? "", "").trim()}`),
        ),
    ).toEqual(["completed: read the code", "pending: write the fix", "pending: run the tests"]);
    expect(await plan.getByRole("heading").textContent()).toContain("1 of 3 done");

    // The mode: shown and switched through POST /sessions/:id/mode; the agent works in it.
    const mode = page.getByLabel("Agent mode");
    expect(await mode.inputValue()).toBe("code");
    await mode.selectOption("architect");
    await eventually(async () => (await srv.api("GET", `/sessions/${s.body.id}`)).body.modes?.currentModeId).toBe("architect");
    await eventually(() => mode.inputValue()).toBe("architect");

    // Slash commands: listed under the empty prompt box, narrowed while typing "/", picked into the box.
    const hints = page.getByRole("list", { name: "Agent commands" });
    await eventually(() => hints.getByRole("button").allTextContents()).toEqual(["/review", "/test"]);
    const box = page.getByLabel("Prompt", { exact: true });
    await box.fill("/re");
    await eventually(() => hints.getByRole("button").allTextContents()).toEqual(["/review"]);
    expect(await hints.textContent()).toContain("what to focus on");
    await shot(page, "ui-agent-controls");
    await hints.getByRole("button", { name: "/review" }).click();
    expect(await box.inputValue()).toBe("/review ");
    await box.pressSequentially("the error paths");
    expect(await hints.count()).toBe(0);
    await page.getByRole("button", { name: "Send" }).click();

    // The next turn's plan replaces the last one live (session.updated), and the agent answered in the chosen mode.
    await page.locator(".session-panel .msg.role-agent", { hasText: "planned 1 steps in mode architect" }).waitFor();
    await eventually(() => plan.locator(".plan-entry").allTextContents()).toEqual([expect.stringContaining("/review the error paths")]);
    // A switch made elsewhere (the API, the CLI) shows up live (session.updated).
    expect((await srv.api("POST", `/sessions/${s.body.id}/mode`, { modeId: "code" })).status).toBe(200);
    await eventually(() => mode.inputValue()).toBe("code");
    expect(await axeSerious(page)).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
