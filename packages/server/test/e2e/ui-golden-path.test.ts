import { execFileSync } from "node:child_process";

import { describe, expect, it } from "vitest";
import { makeRepo } from "../fixture/git.js";

import { eventually, openPage, shot, uiSuite } from "./ui-harness.js";

const show = (repo: string, spec: string) => execFileSync("git", ["show", spec], { cwd: repo, encoding: "utf8" });

describe("golden path from the page alone (Chromium, scripted agent, the review API)", () => {
  const ui = uiSuite();

  it("GOLD-1 add repository → create task → agent streams → review → comment a line → send → the agent changes it → commit → merge", async () => {
    const repo = await makeRepo({ name: "greeter" });
    const { page, pageErrors } = await openPage(ui.browser, ui.srv.url + "/repositories");
    // 1. Add the repository.
    await page.getByLabel("Path").fill(repo.path);
    await page.getByRole("button", { name: "Add repository" }).click();
    await page.locator("table.repos tr", { hasText: "greeter" }).waitFor();
    await shot(page, "gold-1-repository");

    // 2. Create the task on the board and open it.
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Board" }).click();
    await page.getByRole("button", { name: "New task" }).click();
    const form = page.getByRole("form", { name: "Create a task" });
    await form.getByLabel("Title").fill("Greet the world");
    await form.getByRole("button", { name: "Create task" }).click();
    await page.locator(".task-card a", { hasText: "Greet the world" }).click();
    await page.waitForURL("**/tasks/*");
    await shot(page, "gold-2-task");

    // 3. Start the scripted agent and watch it stream.
    await page.getByLabel("First prompt (optional)").fill('write src/app.ts const greeting = "hi";\\nexport default greeting;\nsay wrote **the greeting**');
    await page.getByRole("button", { name: "Start session" }).click();
    await page.locator(".session-panel .msg.role-agent", { hasText: "wrote the greeting" }).waitFor();
    await eventually(() => page.locator(".session-panel .session-state").getAttribute("data-state")).toBe("waiting_for_input");
    await shot(page, "gold-3-streamed");

    // 4. The review view: the new file, line 1.
    await page.getByRole("link", { name: "Review changes" }).click();
    await page.waitForURL("**/review");
    const file = page.locator('.review-file[data-path="src/app.ts"]');
    await file.locator("tr.line.add", { hasText: 'const greeting = "hi";' }).waitFor();
    await shot(page, "gold-4-review");

    // 5. Comment on line 1.
    await file.getByRole("button", { name: "Comment on line 1 (new) of src/app.ts" }).click();
    await file.getByLabel("Comment on line 1 (new)", { exact: true }).fill("Say hello, not hi.");
    await file.getByRole("button", { name: "Add comment" }).click();
    const comment = file.locator(".comment", { hasText: "Say hello, not hi." });
    await eventually(() => comment.getAttribute("data-state")).toBe("open");
    await shot(page, "gold-5-commented");

    // 6. Send it to the agent, with the instruction the scripted agent executes.
    const land = page.getByRole("region", { name: "Review actions" });
    await land.getByLabel("Extra instructions with the comments (optional)").fill('write src/app.ts const greeting = "hello";\\nexport default greeting;');
    await land.getByRole("button", { name: "Send 1 comment to the agent" }).click();
    await land.getByRole("status").filter({ hasText: "Sent 1 comment(s)" }).waitFor();

    // 7. The agent's next turn changes that line; the comment is sent and now outdated.
    await file.locator("tr.line.add", { hasText: 'const greeting = "hello";' }).waitFor();
    await eventually(() => comment.getAttribute("data-state")).toBe("sent");
    await comment.locator(".badge.outdated").waitFor();
    await shot(page, "gold-6-changed");

    // 8. Commit the uncommitted change.
    await land.getByLabel("Commit message").fill("Greet with hello");
    await land.getByRole("button", { name: "Commit" }).click();
    await land.getByRole("status").filter({ hasText: "Committed." }).waitFor();
    await page.getByRole("region", { name: "Committed on the branch" }).locator('.review-file[data-path="src/app.ts"]').waitFor();
    await shot(page, "gold-7-committed");

    // The board's card knows the branch and its ± stat by now.
    const reviewUrl = page.url();
    await page.getByRole("link", { name: "Board" }).first().click();
    const card = page.locator(".task-card", { hasText: "Greet the world" });
    await eventually(() => card.locator(".stat").textContent()).toMatch(/^\+2\s*$/);
    expect(await card.locator(".branch").textContent()).toMatch(/^grove\/greet-the-world/);
    expect(await card.locator(".repo-name").textContent()).toBe("greeter");
    await shot(page, "gold-7b-board-card", false);
    await page.goto(reviewUrl);

    // 9. Merge into the base branch: the person's checkout of main has it.
    // LIVE-5: Merge asks first and offers the strategy; afterwards the task says it is merged.
    await land.getByRole("button", { name: "Merge…" }).click();
    const ask = land.getByRole("alertdialog", { name: "Confirm merge" });
    expect(await ask.textContent()).toMatch(/Merge 1 commit of grove\/greet-the-world\S* into main\?/);
    expect(await ask.getByRole("combobox").inputValue()).toBe("merge");
    await ask.getByRole("button", { name: "Merge into main" }).click();
    await land.getByRole("status").filter({ hasText: "Merged into main at" }).waitFor();
    await land.locator(".merged-state", { hasText: "is in main" }).waitFor();
    expect(await land.getByRole("button", { name: "Nothing to merge" }).isDisabled()).toBe(true);
    expect(show(repo.path, "main:src/app.ts")).toBe('const greeting = "hello";\nexport default greeting;');
    expect(execFileSync("git", ["log", "--format=%s", "main"], { cwd: repo.path, encoding: "utf8" })).toContain("Greet with hello");
    await shot(page, "gold-8-merged");
    expect(pageErrors).toEqual([]);
  });
});
