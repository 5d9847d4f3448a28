import { describe, expect, it } from "vitest";
import { startTestServer, waitForSession } from "../fixture/server.js";
import { eventually, launchBrowser, openPage, uniqueRepoAndTask } from "./ui-harness.js";
import { mcpAnswers } from "../mcp/helpers.js";

describe("MCP-3 an agent's question answered in the page's inbox (Chromium)", () => {
  it("MCP-3: ask_user shows as a question with its choices in the inbox; a click on a choice answers it and the waiting call returns it; a free question takes typed text", async () => {
    const browser = await launchBrowser();
    const srv = await startTestServer("sqlite");
    try {
      const { page, pageErrors } = await openPage(browser, srv.url + "/");
      await eventually(() => page.locator("#live").textContent()).toBe("live");
      const { task } = await uniqueRepoAndTask(srv, "Colours");
      const s = await srv.api("POST", `/tasks/${task.id}/sessions`, {
        prompt: 'mcp ask_user {"question":"Blue or red?","choices":["blue","red"]}\nmcp ask_user {"question":"Why?"}',
      });
      await eventually(() => page.locator(".inbox-button .badge").getAttribute("data-count")).toBe("1");
      await page.getByRole("button", { name: /^Inbox \d/ }).click();
      const group = page.getByRole("group", { name: /^Answer: Colours: Blue or red\?/ });
      expect(await group.getByRole("button").allTextContents()).toEqual(["blue", "red"]);
      await group.getByRole("button", { name: "red", exact: true }).click();
      // The second question arrives once the first call returned the answer.
      const free = page.getByRole("group", { name: /^Answer: Colours: Why\?/ });
      await free.getByRole("textbox", { name: "Your answer" }).fill("it matches the logo");
      await free.getByRole("button", { name: "Send answer" }).click();
      await waitForSession(srv.api, s.body.id, ["waiting_for_input"]);
      expect(await mcpAnswers(srv, s.body.id)).toEqual([{ answer: "red" }, { answer: "it matches the logo" }]);
      // Both questions are done (what is left is the finished turn's own item).
      await eventually(() => page.locator('.inbox-panel li[data-kind="question"]').count()).toBe(0);
      expect(((await srv.api("GET", "/inbox")).body as { kind: string }[]).filter((i) => i.kind === "question")).toEqual([]);
      expect(pageErrors).toEqual([]);
    } finally {
      await browser.close();
      await srv.close();
    }
  });
});
