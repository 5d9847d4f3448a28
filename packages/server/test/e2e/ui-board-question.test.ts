import { describe, expect, it } from "vitest";
import { waitFor, waitForSession } from "../fixture/server.js";
import { eventually, openPage, shot, uiSuite, uniqueRepoAndTask } from "./ui-harness.js";

type Item = { id: string; kind: string; taskId: string };

/**
 * BOARD-4 (MCP-3 on the board): a card whose agent waits for the person's answer to its question
 * says "Needs your answer" in the same "needs you" state as a permission request — live, from the
 * `task.summary` frames, without a reload — and once answered is back to the agent's own state.
 */
describe("BOARD-4 an agent's question on the board's card (Chromium, scripted agent)", () => {
  const ui = uiSuite();

  it("BOARD-4 MCP-3 a card shows Needs your answer while ask_user waits, live; answered, it is Waiting for you again", { timeout: 120_000 }, async () => {
    const { task } = await uniqueRepoAndTask(ui.srv, "Choose a colour");
    const { page, pageErrors } = await openPage(ui.browser, `${ui.srv.url}/`, { width: 1280, height: 800 }, "light");
    await page.locator("#live", { hasText: "live" }).waitFor();
    const badge = page.locator(`.task-card[data-task-id="${task.id}"] .badge.agent`);

    const s = await ui.srv.api("POST", `/tasks/${task.id}/sessions`, {
      prompt: 'mcp ask_user {"question":"Blue or red?","choices":["blue","red"]}\nsay painting it',
    });
    expect(s.status).toBe(201);
    await eventually(() => badge.textContent()).toBe("Needs your answer");
    expect(await badge.getAttribute("data-agent-state")).toBe("needs_permission");
    expect(await badge.getAttribute("data-asks")).toBe("question");
    await shot(page, "board-question-desktop-light", false);

    const item = await waitFor(
      async () => ((await ui.srv.api("GET", "/inbox")).body as Item[]).find((i) => i.kind === "question" && i.taskId === task.id),
      "the question",
    );
    expect((await ui.srv.api("POST", `/inbox/${item.id}/answer`, { answer: "red" })).status).toBe(200);
    await waitForSession(ui.srv.api, s.body.id, ["waiting_for_input"]);
    await eventually(() => badge.textContent()).toBe("Waiting for you");
    expect(await badge.getAttribute("data-asks")).toBeNull();
    expect(pageErrors).toEqual([]);
  });
});
