import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { ONE_DATABASE } from "../fixture/db.js";
import { makeRepo } from "../fixture/git.js";
import { startTestServer } from "../fixture/server.js";
import { applyWorkflow } from "../workflows/helpers.js";
import { axeSerious, eventually, openPage, shot, uiSuite } from "./ui-harness.js";

/**
 * The reviewer loop of workflow-reviewer.test.ts, driven from the page: Review starts a
 * reviewer whose findings come back as line comments and go to the working session in In
 * Progress; a clean review asks for Done, which waits for the person's merge. The fix does not
 * send the card back to Review by itself here: the person does, once the fix is in.
 */
const reviewerLoop = (repositoryId: string, reviewerScript: string) => `repositoryId: ${repositoryId}
steps:
  - id: review
    onEnter:
      - action: start_session
        agent: scripted
        prompt: ${JSON.stringify(reviewerScript)}
    on:
      completed: in_progress
      clean: done
  - id: in_progress
    onEnter:
      - action: send_comments
        prompt: "say fixed {{title}}"
  - id: done
    guard: merged_pull_request
`;

const FINDING = 'mcp comment_create {"path":"src/a.txt","line":2,"body":"Name this better"}';
const CLEAN = "say looks good";

const show = (repo: string, spec: string) => execFileSync("git", ["show", spec], { cwd: repo, encoding: "utf8" });

describe.each(ONE_DATABASE)("WF-2 reviewer workflow from the page (Chromium, %s)", (kind) => {
  const ui = uiSuite(() => startTestServer(kind));

  it("WF-2 Review on the board starts the reviewer; its line comments show on the review page; the card comes back to In Progress live and the comments reach the working session; a clean review waits for the merge on the page before Done", async () => {
    const title = `Widget ${kind}`;
    const repo = await makeRepo({ name: `widget-${kind}`, files: { "src/a.txt": "one\ntwo\n" } });
    const r = await ui.srv.api("POST", "/repositories", { path: repo.path });
    const t = await ui.srv.api("POST", "/tasks", { title, repositories: [{ repositoryId: r.body.id }] });
    const taskId = t.body.id as string;
    await applyWorkflow(ui.srv, "reviewer", reviewerLoop(r.body.id, FINDING));
    const stateOf = async () => ((await ui.srv.api("GET", `/tasks/${taskId}`)).body as { state: string }).state;

    // The person starts the working session on the task page: it changes line 2 of src/a.txt.
    const { page, pageErrors } = await openPage(ui.browser, `${ui.srv.url}/tasks/${taskId}`);
    await page.getByLabel("First prompt (optional)").fill("write src/a.txt one\\ntwo widgets\\n\nsay working");
    await page.getByRole("button", { name: "Start session" }).click();
    const sessionItems = page.getByRole("list", { name: "Session list" }).locator("li");
    await page.locator(".session-panel .msg.role-agent", { hasText: "working" }).waitFor();
    await eventually(() => page.locator(".session-panel .session-state").getAttribute("data-state")).toBe("waiting_for_input");
    const workId = (await sessionItems.first().getAttribute("data-session-id"))!;
    expect(await stateOf()).toBe("todo");

    // 1. The board: Move to… → Review.
    await page.getByRole("link", { name: "← Board" }).click();
    const card = (state: string) => page.locator(`.column[data-state=${state}] .task-card[data-task-id="${taskId}"]`);
    await card("todo").waitFor();
    await page.getByRole("button", { name: `Move to… (${title})` }).click();
    await page
      .getByRole("menu", { name: `Move ${title} to` })
      .getByRole("menuitem", { name: "Review" })
      .click();
    await card("review").waitFor();

    // 3 (seen on the board): the reviewer's end brings the card back to In Progress, live, no reload.
    await card("in_progress").waitFor({ timeout: 60_000 });
    expect(await stateOf()).toBe("in_progress");
    expect(await axeSerious(page)).toEqual([]);
    await shot(page, `ui-wf-reviewer-${kind}-1-back-in-progress`, false);

    // 2. The task page shows what the workflow did: the reviewer session it started, the comments sent.
    await card("in_progress").locator("a", { hasText: title }).click();
    await page.waitForURL(`**/tasks/${taskId}`);
    const runs = page.getByRole("region", { name: "Workflow runs" });
    const reviewerRun = runs.locator("li[data-action=start_session][data-step=review]").first();
    await eventually(() => reviewerRun.getAttribute("data-state")).toBe("succeeded");
    expect(await reviewerRun.textContent()).toContain("turn completed → In progress");
    expect(await reviewerRun.locator("strong").textContent()).toBe("Review");
    const reviewerId = (await reviewerRun.getAttribute("data-session-id"))!;
    expect(reviewerId).toBeTruthy();
    expect(reviewerId).not.toBe(workId);
    // The reviewer session is one of the task's sessions on the page.
    await page.locator(`.session-list li[data-session-id="${reviewerId}"]`).waitFor();
    expect(await reviewerRun.textContent()).toMatch(/\(session #2\)/);
    const sentRun = runs.locator("li[data-action=send_comments][data-step=in_progress]").first();
    await eventually(() => sentRun.getAttribute("data-state")).toBe("succeeded");
    expect(await sentRun.getAttribute("data-session-id")).toBe(workId);

    // 3 (seen in the transcript): the working session got the comment and answered.
    await sessionItems.first().getByRole("button").click();
    const panel = page.locator(".session-panel");
    await panel.locator(".msg.role-user", { hasText: "Name this better" }).waitFor();
    await panel.locator(".msg.role-agent", { hasText: `fixed ${title}` }).waitFor();
    expect(await axeSerious(page)).toEqual([]);
    await shot(page, `ui-wf-reviewer-${kind}-2-task-page`);

    // 2 (seen on the review page): the finding is a line comment under line 2 of src/a.txt, sent.
    await page.getByRole("link", { name: "Review changes" }).click();
    await page.waitForURL(`**/tasks/${taskId}/review`);
    const file = page.locator('.review-file[data-path="src/a.txt"]');
    await file.locator("tr.line.add", { hasText: "two widgets" }).waitFor();
    const comment = file.locator(".comment", { hasText: "Name this better" });
    await eventually(() => comment.getAttribute("data-state")).toBe("sent");
    expect(await comment.locator(".comment-meta").textContent()).toContain("line 2");
    expect(await axeSerious(page)).toEqual([]);
    await shot(page, `ui-wf-reviewer-${kind}-3-review-comments`);

    // The person commits the fix on the review page.
    const land = page.getByRole("region", { name: "Review actions" });
    await land.getByLabel("Commit message").fill("Name the widgets");
    await land.getByRole("button", { name: "Commit" }).click();
    await land.getByRole("status").filter({ hasText: "Committed." }).waitFor();

    // 4. The reviewer now finds nothing; the person sends the card to Review again.
    await applyWorkflow(ui.srv, "reviewer", reviewerLoop(r.body.id, CLEAN));
    await page.getByRole("link", { name: "Board" }).first().click();
    await card("in_progress").waitFor();
    await page.getByRole("button", { name: `Move to… (${title})` }).click();
    await page
      .getByRole("menu", { name: `Move ${title} to` })
      .getByRole("menuitem", { name: "Review" })
      .click();
    await card("review").waitFor();

    // The clean review asks for Done; the guard refuses it until the merge: the card stays in Review.
    await card("review").locator("a", { hasText: title }).click();
    await page.waitForURL(`**/tasks/${taskId}`);
    const refused = runs.locator("li[data-action=move][data-state=failed]");
    await refused.waitFor({ timeout: 60_000 });
    expect(await refused.locator(".run-outcome").textContent()).toMatch(/^workflow_guard: /);
    expect(await runs.locator("li[data-action=start_session][data-state=succeeded]").count()).toBe(2);
    expect(await page.locator("#task-state").getAttribute("data-state")).toBe("review");
    expect(await stateOf()).toBe("review");
    expect(await axeSerious(page)).toEqual([]);
    await shot(page, `ui-wf-reviewer-${kind}-4-guard-refused`);

    // The person merges on the review page; the task is Done and the board shows it there.
    await page.getByRole("link", { name: "Review changes" }).click();
    await page.waitForURL(`**/tasks/${taskId}/review`);
    await land.getByRole("button", { name: "Merge…" }).click();
    const ask = land.getByRole("alertdialog", { name: "Confirm merge" });
    await ask.getByRole("button", { name: "Merge into main" }).click();
    await land.getByRole("status").filter({ hasText: "Merged into main at" }).waitFor();
    expect(show(repo.path, "main:src/a.txt")).toBe("one\ntwo widgets\n");
    await eventually(stateOf).toBe("done");
    await page.getByRole("link", { name: "Board" }).first().click();
    await card("done").waitFor();
    expect(await axeSerious(page)).toEqual([]);
    await shot(page, `ui-wf-reviewer-${kind}-5-done`, false);
    expect(pageErrors).toEqual([]);
    await page.close();
  }, 240_000);
});
