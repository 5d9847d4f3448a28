import { existsSync } from "node:fs";
import { join } from "node:path";
import { type Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { makeRepo } from "../fixture/git.js";
import { waitForSession } from "../fixture/server.js";
import { axeSerious, eventually, openPage, uniqueRepoAndTask, serverWithCarefulAgent, shot, uiSuite } from "./ui-harness.js";

/** The open session's state badge. */
const sessionState = (page: Page) => page.locator(".session-panel .session-state").getAttribute("data-state");

/** Asserts no message is on the page twice: updates replace their message in place (by id). */
async function messageIdsUnique(page: Page): Promise<string[]> {
  const ids = await page.locator(".session-panel .msg").evaluateAll((els) => els.map((e) => e.getAttribute("data-message-id")!));
  expect(new Set(ids).size).toBe(ids.length);
  return ids;
}

describe("UX-2 web UI: a session driven from the task page (Chromium, scripted agent)", () => {
  const ui = uiSuite(serverWithCarefulAgent);

  it("WEB-4.1 WEB-5.1 WEB-8.1 WEB-8.2 WEB-9.1 form → session → live messages → Changes and diff → follow-up prompt", async () => {
    const repo = await makeRepo({ name: "flow" });
    const r = await ui.srv.api("POST", "/repositories", { path: repo.path });
    const { page, pageErrors } = await openPage(ui.browser, ui.srv.url + "/");
    await page.getByRole("button", { name: "New task" }).click();
    const form = page.getByRole("form", { name: "Create a task" });
    await form.getByLabel("Title").fill("Say hello and write a file");
    await form.getByLabel("Repository", { exact: true }).selectOption(r.body.id);
    await form.getByRole("button", { name: "Create task" }).click();
    await page.locator(".task-card a", { hasText: "Say hello and write a file" }).click();
    await page.waitForURL("**/tasks/*");
    const taskId = page.url().split("/tasks/")[1]!;

    // Before the first session: no environment, no worktrees, no sessions.
    await page.locator(".environment", { hasText: "Not created yet" }).waitFor();
    await page.locator(".changes", { hasText: "No worktrees yet" }).waitFor();
    await eventually(() => page.getByLabel("Agent").inputValue()).toBe("scripted");

    await page.getByLabel("First prompt (optional)").fill("say hello **there**, see [the docs](https://example.invalid/docs)\nwrite a.txt hi");
    await page.getByRole("button", { name: "Start session" }).click();
    // The page was open all along: the messages arrive over the event stream, not a reload.
    await page.locator(".session-panel .msg.role-agent", { hasText: "hello" }).waitFor();
    await page.locator(".session-panel .msg.role-tool[data-status=completed]", { hasText: "a.txt" }).waitFor();
    await eventually(() => sessionState(page)).toBe("waiting_for_input");
    expect(await page.locator(".session-panel .msg.role-user").first().textContent()).toContain("say hello");
    // Agent text is Markdown: **there** is bold, not asterisks.
    expect(await page.locator(".session-panel .msg.role-agent .markdown strong").first().textContent()).toBe("there");
    // An agent's link opens in a new tab without the opener (the sanitizer's link hook).
    const link = page.locator(".session-panel .msg.role-agent .markdown a", { hasText: "the docs" });
    expect(await link.getAttribute("target")).toBe("_blank");
    expect(await link.getAttribute("rel")).toBe("noopener noreferrer");
    const sessions = (await ui.srv.api("GET", `/tasks/${taskId}/sessions`)).body as { id: string }[];
    expect(sessions).toHaveLength(1);
    const sid = sessions[0]!.id;
    const apiMessages = (await ui.srv.api("GET", `/sessions/${sid}/messages`)).body as { id: string; role: string; data?: { status?: string } }[];
    await eventually(async () => (await messageIdsUnique(page)).length).toBe(apiMessages.length);
    // Tool calls went pending → completed, yet each is one message showing its final status.
    const toolStatuses = await page.locator(".session-panel .msg.role-tool").evaluateAll((els) => els.map((e) => e.getAttribute("data-status")));
    expect(toolStatuses).toEqual(apiMessages.filter((m) => m.role === "tool").map((m) => m.data?.status));
    expect(toolStatuses.every((s) => s === "completed")).toBe(true);
    // A tool call is collapsed; opened, it shows the diff it made.
    const tool = page.locator(".session-panel .msg.role-tool", { hasText: "a.txt" });
    expect(await tool.locator(".tool-diff").isVisible()).toBe(false);
    await tool.locator("summary").click();
    await tool.locator(".tool-diff .line.add", { hasText: "+hi" }).waitFor();

    // Changes: a.txt is listed with its counts.
    const row = page.locator(".changes tr[data-path='a.txt']");
    await row.waitFor();
    expect(await row.textContent()).toMatch(/(Untracked|Added).*a\.txt.*\+1/);
    expect(await page.locator(".changes .repo-changes .branch-position").textContent()).toBe("Up to date with main");

    // Environment: the worktree path and branch the API reports.
    const env = (await ui.srv.api("GET", `/tasks/${taskId}/environment`)).body as { repositories: { worktreePath: string; worktreeBranch: string }[] };
    await page.locator(".environment table.worktrees code", { hasText: env.repositories[0]!.worktreePath }).waitFor();
    expect(await page.locator(".environment").textContent()).toContain(env.repositories[0]!.worktreeBranch);

    // A follow-up prompt from the prompt box; Changes follow without a reload.
    await page.getByLabel("Prompt", { exact: true }).fill("write b.txt second\nsay done");
    await page.getByRole("button", { name: "Send" }).click();
    await page.locator(".session-panel .msg.role-agent", { hasText: "done" }).waitFor();
    await page.locator(".changes tr[data-path='b.txt']").waitFor();
    expect(await page.getByLabel("Prompt", { exact: true }).inputValue()).toBe("");
    await eventually(() => sessionState(page)).toBe("waiting_for_input");
    await messageIdsUnique(page);
    await shot(page, "ui-task-session");

    // A file of the Changes opens the review at its coloured diff.
    await row.getByRole("link", { name: "a.txt" }).click();
    await page.waitForURL("**/review**");
    const added = page.locator(`.review-file[data-path='a.txt'] tr.line.add td.code`, { hasText: "hi" });
    await added.waitFor();
    const colours = await page.evaluate(() => {
      // Runs in the page: the test tsconfig has no DOM library, hence globalThis.
      const w = globalThis as any;
      const bg = (sel: string): string => w.getComputedStyle(w.document.querySelector(sel)).backgroundColor;
      return { add: bg(".review-file tr.line.add td.code"), other: bg(".review-file tr.hunk td") };
    });
    expect(colours.add).not.toBe(colours.other);
    expect(colours.add).not.toBe("rgba(0, 0, 0, 0)");
    expect(pageErrors).toEqual([]);
  });

  it("WEB-5.2 Cancel ends a `sleep 30000` turn at once; the session waits for input again", async () => {
    const { task } = await uniqueRepoAndTask(ui.srv, "Long turn");
    const { page, pageErrors } = await openPage(ui.browser, `${ui.srv.url}/tasks/${task.id}`);
    await page.getByLabel("First prompt (optional)").fill("sleep 30000");
    await page.getByRole("button", { name: "Start session" }).click();
    await eventually(() => sessionState(page)).toBe("running");
    const t0 = Date.now();
    await page.getByRole("button", { name: "Cancel turn" }).click();
    await eventually(() => sessionState(page), 10_000).toBe("waiting_for_input");
    expect(Date.now() - t0).toBeLessThan(10_000);
    await page.locator(".session-panel .msg.role-system", { hasText: "turn cancelled" }).waitFor();
    expect(await page.getByRole("button", { name: "Cancel turn" }).isDisabled()).toBe(true);
    expect(pageErrors).toEqual([]);
  });

  it("WEB-6.1 WEB-5.3 a `crash 3` session shows its lastError in words (code behind Details); Resume relaunches it; Delete removes it", async () => {
    const { task } = await uniqueRepoAndTask(ui.srv, "Crashing agent");
    const { page, pageErrors } = await openPage(ui.browser, `${ui.srv.url}/tasks/${task.id}`);
    await page.getByLabel("First prompt (optional)").fill("crash 3");
    await page.getByRole("button", { name: "Start session" }).click();
    await eventually(() => sessionState(page)).toBe("failed");
    const s = ((await ui.srv.api("GET", `/tasks/${task.id}/sessions`)).body as { id: string; lastError: { code: string; message: string } }[])[0]!;
    expect(s.lastError).not.toBeNull();
    // WEB-24: said once, in words, in the panel; the raw code and message behind its Details.
    const lastError = page.locator(".session-panel .last-error");
    await eventually(() => lastError.getAttribute("data-error-code")).toBe(s.lastError.code);
    expect(await lastError.textContent()).toBe("The agent stopped unexpectedly during its turn. Resume to go on.");
    expect(await page.locator(".session-panel .last-error-block .error-raw").textContent()).toBe(`${s.lastError.code}: ${s.lastError.message}`);
    expect(await page.locator(`.session-list li[data-session-id="${s.id}"]`).textContent()).not.toContain(s.lastError.code);
    await shot(page, "ui-session-failed");

    await page.getByRole("button", { name: "Resume" }).click();
    await eventually(() => sessionState(page)).toBe("waiting_for_input");
    // WEB-37: a destructive action asks first; "Keep it" changes nothing.
    await page.getByRole("button", { name: "Delete session…" }).click();
    const confirmDelete = page.getByRole("alertdialog", { name: "Confirm delete session" });
    await confirmDelete.getByRole("button", { name: "Keep it" }).click();
    await confirmDelete.waitFor({ state: "detached" });
    await page.getByRole("button", { name: "Delete session…" }).click();
    await confirmDelete.getByRole("button", { name: "Delete session", exact: true }).click();
    await page.locator(`.session-list li[data-session-id="${s.id}"]`).waitFor({ state: "detached" });
    expect((await ui.srv.api("GET", `/sessions/${s.id}`)).status).toBe(404);
    expect(await page.locator(".session-panel").count()).toBe(0);
    expect(pageErrors).toEqual([]);
  });

  it("WEB-7.1 a permission request shows its options as buttons; Allow lets the turn go on", async () => {
    const { task } = await uniqueRepoAndTask(ui.srv, "Asks first");
    const { page, pageErrors } = await openPage(ui.browser, `${ui.srv.url}/tasks/${task.id}`);
    await page.getByLabel("Agent").selectOption("careful");
    await page.getByLabel("First prompt (optional)").fill("ask may I write?\nwrite allowed.txt yes");
    await page.getByRole("button", { name: "Start session" }).click();
    const ask = page.getByRole("group", { name: "Permission request" });
    await ask.waitFor();
    expect(await ask.textContent()).toContain("may I write?");
    expect(await ask.getByRole("button").allTextContents()).toEqual(["Allow", "Always allow", "Reject", "Dismiss"]);
    await shot(page, "ui-permission");
    await ask.getByRole("button", { name: "Allow", exact: true }).click();
    await ask.waitFor({ state: "detached" });
    const sid = ((await ui.srv.api("GET", `/tasks/${task.id}/sessions`)).body as { id: string }[])[0]!.id;
    await waitForSession(ui.srv.api, sid, ["waiting_for_input"]);
    const ws = (await ui.srv.api("GET", `/sessions/${sid}/workspace`)).body as { workspacePath: string };
    expect(existsSync(join(ws.workspacePath, "allowed.txt"))).toBe(true);
    await page.locator(".changes tr[data-path='allowed.txt']").waitFor();
    expect(pageErrors).toEqual([]);
  });

  it("WEB-37 WEB-5.4 during a turn the prompt box queues: the follow-up shows as queued (removable), the typed text is kept until queued, and it is sent when the turn ends", async () => {
    const { task } = await uniqueRepoAndTask(ui.srv, "Busy session");
    const { page, pageErrors } = await openPage(ui.browser, `${ui.srv.url}/tasks/${task.id}`);
    // A long first prompt: the conversation is taller than the screen.
    const lines = Array.from({ length: 60 }, (_, i) => `think reading line ${i + 1}`).join("\n");
    await page.getByLabel("First prompt (optional)").fill(`${lines}\nsleep 30000`);
    await page.getByRole("button", { name: "Start session" }).click();
    await eventually(() => sessionState(page)).toBe("running");
    const form = page.getByRole("form", { name: "Send a prompt" });
    expect(await form.textContent()).toContain("The agent is working. Queue it");
    // Two follow-ups queued; the second taken back.
    await page.getByLabel("Prompt", { exact: true }).fill("say queued one");
    await form.getByRole("button", { name: "Queue" }).click();
    const queued = form.getByRole("list", { name: "Queued follow-ups" });
    await queued.getByText("say queued one").waitFor();
    expect(await page.getByLabel("Prompt", { exact: true }).inputValue()).toBe("");
    await page.getByLabel("Prompt", { exact: true }).fill("say never sent");
    await page.getByLabel("Prompt", { exact: true }).press("Control+Enter");
    await queued.getByText("say never sent").waitFor();
    expect(await queued.locator(".badge.queued").allTextContents()).toEqual(["Queued", "Queued"]);
    await shot(page, "ui-session-queued");
    expect(await axeSerious(page)).toEqual([]);
    await queued.getByRole("button", { name: "Remove queued follow-up: say never sent" }).click();
    await queued.getByText("say never sent").waitFor({ state: "detached" });
    // Reading the top of the conversation, the prompt box is still on screen (it sticks to the bottom).
    await page.locator(".session-panel .messages").evaluate((el) => {
      el.scrollTop = 0;
      el.scrollIntoView({ block: "start" });
    });
    const box = await form.boundingBox();
    expect(box!.y).toBeGreaterThanOrEqual(0);
    expect(box!.y + box!.height).toBeLessThanOrEqual(900 + 1);
    // The turn ends (cancelled): the queued follow-up is the next turn, and leaves the queue.
    await page.getByRole("button", { name: "Cancel turn" }).click();
    await page.locator(".session-panel .msg.role-agent", { hasText: "queued one" }).waitFor();
    await queued.waitFor({ state: "detached" });
    await eventually(() => sessionState(page)).toBe("waiting_for_input");
    expect(await page.locator(".session-panel .msg", { hasText: "never sent" }).count()).toBe(0);
    await eventually(() => form.getByRole("button", { name: "Send" }).isVisible()).toBe(true);
    expect(pageErrors).toEqual([]);
  });
});
