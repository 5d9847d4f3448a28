import { describe, expect, it } from "vitest";
import { waitForSession } from "../fixture/server.js";
import { mcpAnswers, messages } from "../mcp/helpers.js";
import { axeSerious, eventually, openPage, shot, uiSuite, uniqueRepoAndTask } from "./ui-harness.js";

const PHONE = { width: 390, height: 844 };

const FORM = {
  message: "Which database?",
  requestedSchema: {
    type: "object",
    properties: {
      db: {
        type: "string",
        title: "Database",
        oneOf: [
          { const: "pg", title: "PostgreSQL" },
          { const: "lite", title: "SQLite" },
        ],
      },
    },
  },
};

/**
 * WEB-41 (MCP-3 on the task page): an agent's question is answered where the conversation is,
 * on a phone: the session says it waits for the person's answer (never "Working"), the question
 * sits above the prompt box with its choices or a text box, and once answered the conversation
 * says what the person chose. The answer goes through the inbox's own route.
 */
describe("WEB-41 an agent's question answered on its task page (Chromium, phone, scripted agent)", () => {
  const ui = uiSuite();

  it("WEB-41 a form elicitation and an ask_user question are answered on the task page; the state says it waits for the answer; the answer shows afterwards", {
    timeout: 120_000,
  }, async () => {
    const { task } = await uniqueRepoAndTask(ui.srv, "Pick a store");
    const { page, pageErrors } = await openPage(ui.browser, `${ui.srv.url}/tasks/${task.id}`, PHONE, "dark");
    await page.locator("#live", { hasText: "live" }).waitFor();
    const s = await ui.srv.api("POST", `/tasks/${task.id}/sessions`, {
      prompt: `elicit ${JSON.stringify(FORM)}\nmcp ask_user {"question":"Why that one?"}\nsay thanks`,
    });
    expect(s.status).toBe(201);
    const panel = page.locator(".session-panel");
    const state = panel.locator(".session-state");

    // The form's one field, with its choices, on the task page; the session waits for the answer.
    const question = panel.getByRole("group", { name: /^Question from the agent: Which database\?/ });
    await question.waitFor({ timeout: 60_000 });
    await eventually(() => state.textContent()).toBe("Waiting for your answer");
    expect(await state.getAttribute("data-state")).toBe("waiting_for_answer");
    expect(await page.locator(`.session-list li[data-session-id="${s.body.id}"] .badge`).textContent()).toBe("Waiting for your answer");
    const box = await question.boundingBox();
    expect(box!.y + box!.height, "the question is on the screen").toBeLessThanOrEqual(PHONE.height);
    expect(await axeSerious(page)).toEqual([]);
    await shot(page, "question-on-task-phone-dark", false);
    expect(await question.getByRole("button").allTextContents()).toEqual(["PostgreSQL", "SQLite"]);
    await question.getByRole("button", { name: "SQLite", exact: true }).click();

    // The next question is a free one: typed.
    const free = panel.getByRole("group", { name: /^Question from the agent: Why that one\?/ });
    await free.getByRole("textbox", { name: "Your answer" }).fill("it is one file");
    await free.getByRole("button", { name: "Send answer" }).click();
    await waitForSession(ui.srv.api, s.body.id, ["waiting_for_input"], 60_000);

    // What the person chose is said, in the transcript and where the question was.
    await panel.locator(".msg.role-system", { hasText: 'answered "SQLite"' }).waitFor();
    await panel.locator(".answered-questions", { hasText: "You answered: it is one file" }).waitFor();
    await eventually(() => question.count()).toBe(0);
    await eventually(() => state.getAttribute("data-state")).toBe("waiting_for_input");
    await shot(page, "question-answered-phone-dark", false);
    expect(await mcpAnswers(ui.srv, s.body.id)).toEqual([{ answer: "it is one file" }]);
    expect((await messages(ui.srv, s.body.id)).some((m) => m.text === 'elicit: {"action":"accept","content":{"db":"lite"}}')).toBe(true);
    expect(pageErrors).toEqual([]);
  });
});
