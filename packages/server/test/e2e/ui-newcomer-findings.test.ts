import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { makeRepo } from "../fixture/git.js";
import { startTestServer, waitForSession } from "../fixture/server.js";
import { applyWorkflow } from "../workflows/helpers.js";
import { axeSerious, eventually, openPage, shot, uiSuite, uniqueRepoAndTask } from "./ui-harness.js";

const DESK = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const seen = (page: Page) => page.evaluate(() => document.body.innerText);
/** A request the page made that failed, other than the ones a test provokes on purpose. */
const unexpected = (errors: string[], ...expected: RegExp[]) => errors.filter((e) => !expected.some((re) => re.test(e)));

/**
 * WEB-49: what a newcomer still tripped over in the page: the Workflows page out of reach, raw
 * column ids, a read-only built-in with no way to edit it, an empty board with nothing to do,
 * an editor error naming only the server's variable, a Done card saying "Agent idle", and the
 * review's "Land" and one-letter badges.
 */
describe("WEB-49 the page's newcomer findings (Chromium, scripted agent)", () => {
  const ui = uiSuite(() => startTestServer("sqlite"));

  it("WEB-49.1 Workflows is in the header (desk and phone) and every top-level page is in the Ctrl-K palette", async () => {
    for (const size of [DESK, PHONE]) {
      const { page, pageErrors } = await openPage(ui.browser, ui.srv.url + "/", size);
      const link = page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Workflows" });
      expect(await link.isVisible(), `${size.width}px`).toBe(true);
      const box = (await link.boundingBox())!;
      expect(box.x + box.width, `${size.width}px: inside the screen`).toBeLessThanOrEqual(size.width);
      await link.click();
      await page.waitForURL("**/workflows");
      await page.getByRole("heading", { name: "Workflows", level: 1 }).waitFor();
      expect(await link.getAttribute("aria-current")).toBe("page");
      expect(pageErrors).toEqual([]);
      await page.close();
    }

    const { page, pageErrors } = await openPage(ui.browser, ui.srv.url + "/settings", DESK);
    await page.getByRole("heading", { name: "Settings", level: 1 }).waitFor();
    const palette = page.getByRole("dialog", { name: "Command palette" });
    const open = async () => {
      await page.keyboard.press("Control+k");
      await palette.waitFor();
    };
    await open();
    const commands = await palette.getByRole("option").evaluateAll((els) => els.map((e) => e.getAttribute("data-command")));
    expect(commands).toEqual(
      expect.arrayContaining(["go-board", "go-inbox", "go-archived", "go-repositories", "go-workflows", "go-usage", "go-trash", "go-settings"]),
    );
    const go = async (words: string, path: string) => {
      await open();
      await palette.getByRole("combobox").fill(words);
      await page.keyboard.press("Enter");
      await page.waitForURL(`**${path}`);
    };
    await go("workflows", "/workflows");
    await page.getByRole("heading", { name: "Workflows", level: 1 }).waitFor();
    await go("usage", "/usage");
    await page.getByRole("heading", { name: "Usage", level: 1 }).waitFor();
    await go("inbox", "/inbox");
    await page.locator(".inbox-panel").waitFor();
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it("WEB-49.2 WEB-49.3 columns by their names, never an id; the built-in offers Copy to edit: a taken name is refused in words (nothing stored), a new one opens the copy in the editor", async () => {
    const repo = await makeRepo({ name: "wf-words" });
    try {
      const repositoryId = (await ui.srv.api("POST", "/repositories", { path: repo.path })).body.id as string;
      await applyWorkflow(
        ui.srv,
        "team",
        `repositoryId: ${repositoryId}\nsteps:\n  - id: in_progress\n    onEnter:\n      - action: start_session\n        agent: scripted\n        prompt: "say hi"\n    on:\n      completed: review\n  - id: review\n    onEnter:\n      - action: move\n        to: done\n`,
      );
      const { page, pageErrors } = await openPage(ui.browser, ui.srv.url + "/workflows", DESK);
      await page.locator('button[data-workflow="team"]').click();
      const inProgress = page.locator('fieldset[data-step="in_progress"]');
      await inProgress.getByRole("heading", { name: "In progress" }).waitFor();
      await page.locator('fieldset[data-step="review"]').getByRole("heading", { name: "Review" }).waitFor();
      expect(await inProgress.getByLabel("When its turn completes").locator("option:checked").textContent()).toBe("move to Review");
      expect(await page.locator('fieldset[data-step="review"]').getByLabel("to column").locator("option:checked").textContent()).toBe("Done");
      const text = await seen(page);
      // No column id, no action kind, no repository id: the repository by its name.
      expect(text).not.toMatch(/\b(todo|in_progress|start_session)\b/);
      expect(text).not.toContain(repositoryId);
      expect(text).toContain("repository wf-words");
      await shot(page, "workflows-columns-1280", false);

      // The built-in: read only, with Copy to edit.
      await page.locator('button[data-workflow="default"]').click();
      const copy = page.getByRole("form", { name: "Copy to edit" });
      const name = copy.getByLabel("Name of the copy");
      expect(await name.inputValue()).toBe("my-board");
      await name.fill("team");
      await copy.getByRole("button", { name: "Copy to edit" }).click();
      const refused = copy.locator('.error-box[data-error-code="workflow_version_conflict"]');
      await refused.waitFor();
      expect(await refused.locator(".error-text").textContent()).toContain(
        "A workflow with this name exists already, so nothing was copied. Choose another name.",
      );
      const stored = (await ui.srv.api("GET", "/workflows/team")).body;
      expect(stored.version).toBe(1);
      expect(stored.repositoryId).toBe(repositoryId);

      await name.fill("ours");
      await copy.getByRole("button", { name: "Copy to edit" }).click();
      await page.getByRole("heading", { name: /^ours/, level: 2 }).waitFor();
      expect(await page.locator('button[data-workflow="ours"]').getAttribute("aria-pressed")).toBe("true");
      const made = (await ui.srv.api("GET", "/workflows/ours")).body;
      expect(made).toMatchObject({ version: 1, builtIn: false, repositoryId: null });
      expect(made.steps.map((s: { id: string }) => s.id)).toEqual(["todo", "in_progress", "review", "done", "failed"]);
      // Editable now: a WIP limit saved from the form is version 2.
      await page.locator('fieldset[data-step="in_progress"]').getByLabel("WIP limit").fill("2");
      await page.getByRole("button", { name: "Save" }).click();
      await eventually(() => page.getByRole("status").filter({ hasText: "Saved" }).textContent()).toBe("Saved version 2.");
      expect(await axeSerious(page)).toEqual([]);
      expect(unexpected(pageErrors, /http 409 PUT .*\/workflows\/team\?ifVersion=0$/, /status of 409/)).toEqual([]);
      await page.close();
      expect((await ui.srv.api("DELETE", "/workflows/ours")).status).toBe(204);
      expect((await ui.srv.api("DELETE", "/workflows/team")).status).toBe(204);
    } finally {
      await repo.cleanup();
    }
  });

  it("WEB-49.5 an editor refusal says Settings → Editor first (a link that lands on the field), GROVE_EDITOR second", async () => {
    const { task } = await uniqueRepoAndTask(ui.srv, "Editor words");
    const s = await ui.srv.api("POST", `/tasks/${task.id}/sessions`, { prompt: "say hi" });
    await waitForSession(ui.srv.api, s.body.id, ["waiting_for_input"]);
    expect((await ui.srv.api("PUT", "/settings/editor", { command: "true" })).status).toBe(200);
    const { page, pageErrors } = await openPage(ui.browser, `${ui.srv.url}/tasks/${task.id}`, DESK);
    const open = page.getByRole("button", { name: "Open in editor" });
    await eventually(() => open.isEnabled()).toBe(true);
    // The editor is dropped behind the page's back: the server refuses.
    expect((await ui.srv.api("DELETE", "/settings/editor")).status).toBe(200);
    await open.click();
    const box = page.locator('.environment .error-box[data-error-code="editor_not_configured"]');
    await box.waitFor();
    const words = (await box.locator(".error-text").textContent()) ?? "";
    expect(words).toMatch(/Set one in Settings → Editor .*, or start the server with GROVE_EDITOR set/);
    await box.getByRole("link", { name: "Settings → Editor" }).click();
    await page.waitForURL("**/settings#settings-editor");
    const field = page.getByLabel("Command Open in editor runs with a worktree's path");
    await eventually(() => field.evaluate((el) => el === document.activeElement)).toBe(true);
    expect(unexpected(pageErrors, /http 409 POST .*open-in-editor$/, /status of 409/)).toEqual([]);
    await page.close();
  });

  it("WEB-49.6 a Done card says its outcome, never 'Agent idle'; a card whose agent waits on active work keeps its agent state", async () => {
    const done = await uniqueRepoAndTask(ui.srv, "Finished work");
    const active = await uniqueRepoAndTask(ui.srv, "Work going on");
    for (const t of [done, active]) {
      const s = await ui.srv.api("POST", `/tasks/${t.task.id}/sessions`, { prompt: "say hi" });
      await waitForSession(ui.srv.api, s.body.id, ["waiting_for_input"]);
    }
    expect((await ui.srv.api("PATCH", `/tasks/${done.task.id}`, { state: "done" })).status).toBe(200);
    const { page, pageErrors } = await openPage(ui.browser, ui.srv.url + "/", DESK);
    const doneCard = page.locator(`.task-card[data-task-id="${done.task.id}"]`);
    const activeCard = page.locator(`.task-card[data-task-id="${active.task.id}"]`);
    await eventually(() => doneCard.getAttribute("data-state")).toBe("done");
    await eventually(() => activeCard.locator(".badge.agent").textContent()).toBe("Waiting for you");
    expect(await doneCard.locator(".badge.state-done").textContent()).toBe("Done");
    expect(await doneCard.locator(".badge.agent").count()).toBe(0);
    expect(await doneCard.textContent()).not.toMatch(/Agent idle|Waiting for you/);
    await shot(page, "done-card-outcome-1280", false);
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it("WEB-49.7 the review says Commit and merge, never Land; each file's status badge carries its word; axe: nothing serious", async () => {
    const { task } = await uniqueRepoAndTask(ui.srv, "Status words");
    const s = await ui.srv.api("POST", `/tasks/${task.id}/sessions`, { prompt: "write src/hello.txt hello\nwrite README.md # changed" });
    await waitForSession(ui.srv.api, s.body.id, ["waiting_for_input"]);
    const { page, pageErrors } = await openPage(ui.browser, `${ui.srv.url}/tasks/${task.id}/review`, DESK);
    const actions = page.getByRole("region", { name: "Review actions" });
    await actions.getByRole("heading", { name: "Commit and merge" }).waitFor();
    const tree = page.getByRole("navigation", { name: "Changed files" });
    const untracked = tree.getByRole("img", { name: "Untracked" });
    await untracked.waitFor();
    expect(await untracked.getAttribute("title")).toBe("Untracked");
    expect(await untracked.textContent()).toBe("U");
    const modified = tree.getByRole("img", { name: "Modified" });
    expect(await modified.getAttribute("title")).toBe("Modified");
    await page.locator('.review-file[data-path="src/hello.txt"] .file-head .badge.file-untracked', { hasText: "Untracked" }).waitFor();
    await page.locator('.review-file[data-path="README.md"] .file-head .badge.file-modified', { hasText: "Modified" }).waitFor();
    expect(await seen(page)).not.toMatch(/\bLand\b|\blands\b/);
    // Uncommitted work, no commit yet: Merge… waits for a commit, it never says "Nothing to merge".
    expect(await actions.getByRole("button", { name: "Merge…" }).isDisabled()).toBe(true);
    expect(await actions.locator(".merge-why").textContent()).toBe("Commit the uncommitted changes first.");
    expect(await actions.getByRole("button", { name: "Nothing to merge" }).count()).toBe(0);
    expect(await axeSerious(page)).toEqual([]);
    await shot(page, "review-status-words-1280", false);
    expect(pageErrors).toEqual([]);
    await page.close();
  });
});

describe("WEB-49.4 the first board: Add a repository, then New task (Chromium)", () => {
  const ui = uiSuite(() => startTestServer("sqlite"));

  it("WEB-49.4 no repository → an Add a repository card at the top that leads to the form; a repository but no task → No tasks yet under New task; a task → neither; only archived tasks → No open tasks, linking to them (1280×800, 390×844)", async () => {
    for (const size of [DESK, PHONE]) {
      const { page, pageErrors } = await openPage(ui.browser, ui.srv.url + "/", size);
      const start = page.getByRole("region", { name: "Add a repository" });
      await start.waitFor();
      const box = (await start.boundingBox())!;
      expect(box.y + box.height, `${size.width}px: on the first screen`).toBeLessThanOrEqual(size.height);
      expect(box.x + box.width).toBeLessThanOrEqual(size.width);
      await shot(page, `board-start-repository-${size.width}`, false);
      await start.getByRole("link", { name: "Add a repository" }).click();
      await page.waitForURL("**/repositories");
      await page.getByRole("form", { name: "Add a repository" }).waitFor();
      expect(pageErrors).toEqual([]);
      await page.close();
    }

    const repo = await makeRepo({ name: "first-repo" });
    try {
      const repositoryId = (await ui.srv.api("POST", "/repositories", { path: repo.path })).body.id as string;
      for (const size of [DESK, PHONE]) {
        const { page, pageErrors } = await openPage(ui.browser, ui.srv.url + "/", size);
        const empty = page.getByRole("region", { name: "No tasks yet" });
        await empty.waitFor();
        expect(await page.getByRole("region", { name: "Add a repository" }).count()).toBe(0);
        const newTask = page.getByRole("button", { name: "New task" });
        const button = (await newTask.boundingBox())!;
        const card = (await empty.boundingBox())!;
        expect(button.y + button.height, `${size.width}px: New task on the first screen`).toBeLessThanOrEqual(size.height);
        expect(button.y, "New task above the card").toBeLessThan(card.y);
        expect(card.y + card.height, `${size.width}px: the card on the first screen`).toBeLessThanOrEqual(size.height);
        await shot(page, `board-start-task-${size.width}`, false);
        if (size === PHONE) {
          // The first task, live: the card goes.
          const created = await ui.srv.api("POST", "/tasks", { title: "First", repositories: [{ repositoryId }] });
          expect(created.status).toBe(201);
          await eventually(() => empty.count()).toBe(0);
          // Archived, it leaves an empty board that is no first visit: the card says where it went.
          expect((await ui.srv.api("POST", `/tasks/${created.body.id as string}/archive`)).status).toBeLessThan(300);
          const none = page.getByRole("region", { name: "No open tasks" });
          await none.waitFor();
          expect(await empty.count()).toBe(0);
          await shot(page, "board-start-archived-390", false);
          await none.getByRole("link", { name: "1 archived task" }).click();
          await page.waitForURL("**/archived");
          await page.getByRole("link", { name: "First", exact: true }).waitFor();
        }
        expect(pageErrors).toEqual([]);
        await page.close();
      }
    } finally {
      await repo.cleanup();
    }
  });
});
