import { type Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { isGone } from "../agents/fixture.js";
import { terminals } from "../../src/orchestrator/terminals.js";
import { waitForSession } from "../fixture/server.js";
import { eventually, openPage, shot, uniqueRepoAndTask, uiSuite } from "./ui-harness.js";

const alive = (pid: number) => !isGone(pid);

/** What the terminal shows (xterm's DOM renderer keeps one element per row). */
const screen = (page: Page) => page.locator(".terminal-box .xterm-rows").textContent();

describe("terminal: a shell in the task's worktree (Chromium, node-pty)", () => {
  const ui = uiSuite();

  it("TERM-1 TERM-2 TERM-3 `git status` runs in the worktree; a reload reattaches with the output; archive kills the shell", async () => {
    const { task, repositoryId } = await uniqueRepoAndTask(ui.srv, "Terminal task");
    const s = await ui.srv.api("POST", `/tasks/${task.id}/sessions`, { prompt: "write made-by-agent.txt hello" });
    await waitForSession(ui.srv.api, s.body.id, ["waiting_for_input"]);
    const env = (await ui.srv.api("GET", `/tasks/${task.id}/environment`)).body as { repositories: { worktreePath: string }[] };
    const worktree = env.repositories[0]!.worktreePath;

    const { page, pageErrors } = await openPage(ui.browser, `${ui.srv.url}/tasks/${task.id}`);
    const term = page.getByRole("region", { name: "Terminal" });
    await term.locator(".terminal-state", { hasText: "connected" }).waitFor();
    expect(await term.locator(".terminal-box").getAttribute("data-repository-id")).toBe(repositoryId);
    await term.locator(".terminal-box").click();
    await page.keyboard.type("git status --short; pwd");
    await page.keyboard.press("Enter");
    await eventually(() => screen(page)).toContain("?? made-by-agent.txt");
    await eventually(() => screen(page)).toContain(worktree);
    await shot(page, "ui-terminal", false);
    const pids = terminals.pidsOf(task.id);
    expect(pids).toHaveLength(1);
    expect(alive(pids[0]!)).toBe(true);

    // A reload: the same shell (same pid), its recent output replayed.
    await page.reload();
    await term.locator(".terminal-state", { hasText: "connected" }).waitFor();
    // xterm draws its rows only while the terminal is in view (as a person looking at it).
    await term.locator(".terminal-box").scrollIntoViewIfNeeded();
    await eventually(() => screen(page)).toContain("?? made-by-agent.txt");
    expect(terminals.pidsOf(task.id)).toEqual(pids);

    // Resizing the panel resizes the pty (xterm's fit → a resize frame → node-pty).
    await page.setViewportSize({ width: 900, height: 900 });
    await term.locator(".terminal-box").click();
    await page.keyboard.type("stty size");
    await page.keyboard.press("Enter");
    await eventually(() => screen(page)).toMatch(/\n?\d+ \d+/);

    // Archive: cleanup kills the task's shell before it removes the worktree.
    expect((await ui.srv.api("POST", `/tasks/${task.id}/archive`)).status).toBe(202);
    await eventually(() => alive(pids[0]!)).toBe(false);
    expect(terminals.pidsOf(task.id)).toEqual([]);
    // The archived task is read-only: no terminal on its page any more.
    await page.locator(".archived-banner").waitFor();
    expect(await term.count()).toBe(0);
    expect(pageErrors).toEqual([]);
  });

  it("TERM-4 the terminal socket refuses a task without a worktree (409 terminal_unavailable) and an unknown task (404)", async () => {
    const { task, repositoryId } = await uniqueRepoAndTask(ui.srv, "No worktree yet");
    const url = (id: string) => `${ui.srv.url.replace(/^http/, "ws")}/api/v1/tasks/${id}/terminal?repositoryId=${repositoryId}`;
    const { default: WebSocket } = await import("ws");
    const status = (u: string) =>
      new Promise<number>((resolve) => {
        const ws = new WebSocket(u);
        ws.on("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0));
        ws.on("open", () => {
          ws.close();
          resolve(101);
        });
        ws.on("error", () => undefined);
      });
    expect(await status(url(task.id))).toBe(409);
    expect(await status(url("task_nope"))).toBe(404);
    expect(terminals.pidsOf(task.id)).toEqual([]);
  });

  it("TERM-5 WEB-46 open in editor: without an editor the one editor action is disabled with a link to Settings; once Settings sets one it is enabled", async () => {
    const { task } = await uniqueRepoAndTask(ui.srv, "Editor task");
    const s = await ui.srv.api("POST", `/tasks/${task.id}/sessions`, { prompt: "say hi" });
    await waitForSession(ui.srv.api, s.body.id, ["waiting_for_input"]);
    const { page, pageErrors } = await openPage(ui.browser, `${ui.srv.url}/tasks/${task.id}`);
    const open = page.getByRole("button", { name: "Open in editor" });
    await eventually(() => open.isDisabled()).toBe(true);
    const set = page.locator(".environment").getByRole("link", { name: "Set an editor in Settings" });
    expect(await set.isVisible()).toBe(true);
    expect(await set.getAttribute("href")).toBe("/settings");
    // One editor action: no second "Open in VS Code" beside it.
    expect(await page.getByRole("link", { name: "Open in VS Code" }).count()).toBe(0);

    // Settings sets the editor, no restart: the action is enabled on the next visit.
    expect((await ui.srv.api("PUT", "/settings/editor", { command: "true" })).status).toBe(200);
    await page.reload();
    await eventually(() => open.isEnabled()).toBe(true);
    expect(await set.count()).toBe(0);
    expect(pageErrors).toEqual([]);
    await page.close();
  });
});
