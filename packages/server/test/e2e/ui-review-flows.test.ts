import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { makeRepo } from "../fixture/git.js";
import { waitForSession } from "../fixture/server.js";
import { eventually, openPage, uiSuite } from "./ui-harness.js";

const git = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, encoding: "utf8" });

/** A task whose agent committed `a.txt` on the branch; the worktree path. */
async function committedTask(ui: ReturnType<typeof uiSuite>, name: string, prompt: string) {
  const repo = await makeRepo({ name, files: { "a.txt": "base\n" } });
  const r = await ui.srv.api("POST", "/repositories", { path: repo.path });
  const t = await ui.srv.api("POST", "/tasks", { title: `Flows ${name}`, repositories: [{ repositoryId: r.body.id }] });
  const s = await ui.srv.api("POST", `/tasks/${t.body.id}/sessions`, { prompt });
  await waitForSession(ui.srv.api, s.body.id, ["waiting_for_input"]);
  const env = (await ui.srv.api("GET", `/tasks/${t.body.id}/environment`)).body as { repositories: { worktreePath: string }[] };
  return { repo, taskId: t.body.id as string, sessionId: s.body.id as string, worktree: env.repositories[0]!.worktreePath };
}

describe("RV-7 review flows in the browser (Chromium)", () => {
  const ui = uiSuite();

  it("RV-7: a file committed and edited again is in both sections, each with its own diff", async () => {
    const { taskId, worktree } = await committedTask(ui, "both", "write a.txt committed\ncommit task: a");
    writeFileSync(join(worktree, "a.txt"), "edited again\n");
    const { page, pageErrors } = await openPage(ui.browser, `${ui.srv.url}/tasks/${taskId}/review`);
    const section = (title: string) => page.getByRole("region", { name: title });
    const committed = section("Committed on the branch").locator('.review-file[data-path="a.txt"]');
    const uncommitted = section("Uncommitted changes").locator('.review-file[data-path="a.txt"]');
    await committed.locator("tr.line.add", { hasText: "committed" }).waitFor();
    expect(await committed.locator("tr.line.del td.code").allTextContents()).toEqual(["base"]);
    expect(await committed.locator("tr.line.add td.code").allTextContents()).toEqual(["committed"]);
    await uncommitted.locator("tr.line.add", { hasText: "edited again" }).waitFor();
    expect(await uncommitted.locator("tr.line.del td.code").allTextContents()).toEqual(["committed"]);
    expect(await uncommitted.locator("tr.line.add td.code").allTextContents()).toEqual(["edited again"]);
    // Both parts are listed in the file tree, one per section.
    expect(await page.getByRole("navigation", { name: "Changed files" }).getByText("a.txt").count()).toBe(2);
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it("RV-7: Update from base with uncommitted changes says so in its own words and offers autostash", async () => {
    const { repo, taskId, worktree } = await committedTask(ui, "stash", "write b.txt task\ncommit task: b");
    writeFileSync(join(worktree, "b.txt"), "task, edited\n");
    writeFileSync(join(repo.path, "c.txt"), "from main\n");
    git(repo.path, "add", "c.txt");
    git(repo.path, "commit", "-qm", "main: c");
    const { page } = await openPage(ui.browser, `${ui.srv.url}/tasks/${taskId}/review`);
    const land = page.getByRole("region", { name: "Review actions" });
    await land.getByRole("button", { name: "Update from base" }).click();
    const box = land.locator('.error-box[data-error-code="dirty_worktree"]');
    await box.waitFor();
    const text = await box.locator(".error-text").textContent();
    expect(text).toContain("stash");
    expect(text).not.toMatch(/delete/i);
    await box.getByRole("button", { name: "Update with autostash" }).click();
    await land.getByRole("status").filter({ hasText: "Updated from base." }).waitFor();
    // The base's commit is under the task's; the uncommitted edit came back.
    expect(git(worktree, "log", "--format=%s").split("\n").slice(0, 2)).toEqual(["task: b", "main: c"]);
    expect(readFileSync(join(worktree, "b.txt"), "utf8")).toBe("task, edited\n");
    await eventually(() => land.locator(".error-box").count()).toBe(0);
    await page.close();
  });

  it("RV-8: conflicts on the page: keep them, see the files and hunks, send them to the agent, continue; and abort", async () => {
    const { repo, taskId, worktree } = await committedTask(ui, "clash", "write a.txt task\ncommit task: a");
    const onMain = (content: string) => {
      writeFileSync(join(repo.path, "a.txt"), content);
      git(repo.path, "commit", "-qam", "main: a");
    };
    onMain("main\n");
    const { page, pageErrors } = await openPage(ui.browser, `${ui.srv.url}/tasks/${taskId}/review`);
    const land = page.getByRole("region", { name: "Review actions" });
    await land.getByRole("button", { name: "Update from base" }).click();
    const box = land.locator('.error-box[data-error-code="merge_conflict"]');
    await box.waitFor();
    expect(await box.locator(".error-text").textContent()).toContain("Keep the conflicts");
    await box.getByRole("button", { name: "Update and keep the conflicts" }).click();

    const view = page.getByRole("region", { name: "Conflicts" });
    const file = view.locator('.conflict-files li[data-path="a.txt"]');
    await file.waitFor();
    expect(await file.getAttribute("data-resolved")).toBe("false");
    const hunk = await file.locator("pre.conflict-hunk").textContent();
    expect(hunk).toMatch(/^<{7} [^\n]*\nmain\n={7}\ntask\n>{7} /);
    expect(await view.getByRole("button", { name: "Continue the update" }).isDisabled()).toBe(true);

    await view.getByLabel("Words for the agent with the conflicts (optional)").fill("write a.txt main and task");
    await view.getByRole("button", { name: "Send the conflicts to the agent" }).click();
    await view.getByRole("status").filter({ hasText: "Sent the conflicts to the agent." }).waitFor();
    await eventually(async () => {
      await view.getByRole("button", { name: "Refresh" }).click();
      return file.getAttribute("data-resolved");
    }).toBe("true");
    expect(readFileSync(join(worktree, "a.txt"), "utf8")).toBe("main and task");
    await view.getByRole("button", { name: "Continue the update" }).click();
    await page.getByRole("status").filter({ hasText: "Update finished." }).waitFor();
    await eventually(() => page.getByRole("region", { name: "Conflicts" }).count()).toBe(0);
    expect(git(worktree, "log", "--format=%s", "-2").trim().split("\n")).toEqual(["task: a", "main: a"]);

    // Abort: the branch is back where it was, the view is gone.
    const head = git(worktree, "rev-parse", "HEAD").trim();
    onMain("main again\n");
    await land.getByRole("button", { name: "Update from base" }).click();
    await land.locator('.error-box[data-error-code="merge_conflict"]').getByRole("button", { name: "Update and keep the conflicts" }).click();
    await view.locator('.conflict-files li[data-path="a.txt"]').waitFor();
    await view.getByRole("button", { name: "Abort the update" }).click();
    await page.getByRole("status").filter({ hasText: "Update aborted" }).waitFor();
    await eventually(() => page.getByRole("region", { name: "Conflicts" }).count()).toBe(0);
    expect(git(worktree, "rev-parse", "HEAD").trim()).toBe(head);
    expect(git(worktree, "status", "--porcelain")).toBe("");
    // Only the two refused updates (409 merge_conflict, the way into the view) failed.
    expect(pageErrors.filter((e) => !e.includes("409"))).toEqual([]);
    await page.close();
  });
});
