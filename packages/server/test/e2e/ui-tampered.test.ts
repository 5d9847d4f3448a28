import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { plantGitDir, tempDir } from "../fixture/git.js";
import { waitForSession } from "../fixture/server.js";
import { openPage, shot, uniqueRepoAndTask, uiSuite } from "./ui-harness.js";

describe("SBX-4 on the task page: a redirected .git (Chromium)", () => {
  const ui = uiSuite();

  it("SBX-4 WEB-14.2 the task page says the worktree's .git was redirected and Grove runs nothing there; Restore writes the link back", async () => {
    const { task } = await uniqueRepoAndTask(ui.srv, "Tampered worktree");
    const s = await ui.srv.api("POST", `/tasks/${task.id}/sessions`, { prompt: "write work.txt w" });
    await waitForSession(ui.srv.api, s.body.id, ["waiting_for_input"]);
    const wt = ((await ui.srv.api("GET", `/tasks/${task.id}/environment`)).body as { repositories: { worktreePath: string }[] }).repositories[0]!.worktreePath;
    const marker = join(await tempDir("grove-ui-sbx4-"), "ran");
    const original = readFileSync(join(wt, ".git"), "utf8");
    plantGitDir(wt, marker, { redirect: true });

    const { page, pageErrors } = await openPage(ui.browser, `${ui.srv.url}/tasks/${task.id}`);
    const warn = page.locator("[data-tampered-worktree]");
    await warn.waitFor();
    expect(await warn.textContent()).toContain("Grove runs nothing there");
    await shot(page, "ui-tampered-worktree");
    await warn.getByRole("button", { name: "Restore .git link" }).click();
    await warn.waitFor({ state: "detached" });
    expect(readFileSync(join(wt, ".git"), "utf8")).toBe(original);
    await page.locator(".changes tr[data-path='work.txt']").waitFor();
    expect(existsSync(marker)).toBe(false);
    expect(pageErrors).toEqual([]);
  });
});
