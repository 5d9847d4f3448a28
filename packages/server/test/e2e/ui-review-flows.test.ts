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
});
