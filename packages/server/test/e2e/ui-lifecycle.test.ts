import { execFileSync } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";
import { waitForSession } from "../fixture/server.js";
import { eventually, loadedResources, openPage, shot, uniqueRepoAndTask, uiSuite } from "./ui-harness.js";

const git = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, stdio: "ignore" });

describe("UX-2 web UI: archive, unarchive, delete and cleanup jobs (Chromium)", () => {
  const ui = uiSuite();

  /** A task whose worktree exists, with the agent's uncommitted file in it. */
  async function dirtyTask(title: string) {
    const { task } = await uniqueRepoAndTask(ui.srv, title);
    const s = await ui.srv.api("POST", `/tasks/${task.id}/sessions`, { prompt: "write dirty.txt not committed" });
    expect(s.status).toBe(201);
    await waitForSession(ui.srv.api, s.body.id, ["waiting_for_input"]);
    return task;
  }

  it("WEB-11.1 WEB-39 Archive runs a cleanup job shown live; the archived page is read-only with Unarchive, which brings the task back", async () => {
    const task = await dirtyTask("Archive me");
    const { page, pageErrors } = await openPage(ui.browser, `${ui.srv.url}/tasks/${task.id}`);
    // WEB-39: the task's destructive actions are secondary buttons (Delete asks first, WEB-11.5).
    for (const name of ["Archive", "Delete task"]) expect(await page.getByRole("button", { name, exact: true }).getAttribute("class")).toMatch(/\bsecondary\b/);
    await page.getByRole("button", { name: "Archive", exact: true }).click();
    const job = page.locator(".jobs tbody tr", { hasText: "archive" });
    await job.waitFor({ state: "attached" });
    // The job reaches its end state through cleanup_job.updated events (no reload).
    await eventually(() => job.getAttribute("data-state")).toBe("succeeded");
    // WEB-39: cleanup jobs are internals: once finished they fold behind their toggle.
    await eventually(() => page.locator("details.cleanup-jobs").evaluate((d) => (d as HTMLDetailsElement).open)).toBe(false);
    const jobs = (await ui.srv.api("GET", `/cleanup-jobs?taskId=${task.id}`)).body as { id: string; attempts: number; state: string }[];
    expect(jobs).toHaveLength(1);
    expect(await job.getAttribute("data-job-id")).toBe(jobs[0]!.id);
    expect(await job.locator("td.num").textContent()).toBe(String(jobs[0]!.attempts));
    // Read-only: no prompt box, no new session, no session actions; the page says what happened.
    const banner = page.locator(".archived-banner");
    await banner.waitFor();
    await page.locator(".task-head .badge.archived").waitFor();
    expect(await page.getByRole("form", { name: "Start a session" }).count()).toBe(0);
    expect(await page.getByRole("form", { name: "Send a prompt" }).count()).toBe(0);
    expect(await page.getByRole("button", { name: "Resume" }).count()).toBe(0);
    expect(await page.locator(".environment").textContent()).toContain("Archived: the worktrees were removed");
    expect(await page.locator(".environment").textContent()).not.toContain("the first session creates them");
    // The messages of the archived task's session stay readable.
    await page.locator(".session-panel .msg.role-tool", { hasText: "dirty.txt" }).waitFor();
    await shot(page, "ui-archived");

    await banner.getByRole("button", { name: "Unarchive" }).click();
    await page.getByRole("button", { name: "Archive", exact: true }).waitFor();
    await eventually(() => page.locator(".task-head .badge.archived").count()).toBe(0);
    await page.getByRole("form", { name: "Start a session" }).waitFor();
    expect((await ui.srv.api("GET", `/tasks/${task.id}`)).body.archivedAt).toBeNull();
    expect(pageErrors).toEqual([]);
  });

  it("WEB-11.2 Delete of a dirty worktree asks in the person's words; Keep changes nothing; Delete anyway goes back to the board with a notice", async () => {
    const task = await dirtyTask("Delete me");
    const { page, pageErrors } = await openPage(ui.browser, `${ui.srv.url}/tasks/${task.id}`);
    await page.getByRole("button", { name: "Delete task" }).click();
    const confirm = page.getByRole("alertdialog", { name: "Confirm delete" });
    // LIVE-5: every delete asks first; the task goes to the trash.
    await confirm.getByRole("button", { name: "Move to trash" }).click();
    await page.locator('[role=alertdialog][data-error-code="dirty_worktree"]').waitFor();
    expect(await confirm.getAttribute("data-error-code")).toBe("dirty_worktree");
    expect(await confirm.textContent()).toContain("This task has uncommitted changes. Delete anyway (discards them)?");
    expect(await confirm.textContent()).not.toContain("discardChanges");
    await shot(page, "ui-delete-confirm");
    await confirm.getByRole("button", { name: "Keep the task" }).click();
    await confirm.waitFor({ state: "detached" });
    expect((await ui.srv.api("GET", `/tasks/${task.id}`)).status).toBe(200);
    expect((await ui.srv.api("GET", `/cleanup-jobs?taskId=${task.id}`)).body).toEqual([]);
    await eventually(() => page.locator(".jobs tbody tr").count()).toBe(0);

    await page.getByRole("button", { name: "Delete task" }).click();
    await confirm.getByRole("button", { name: "Move to trash" }).click();
    await confirm.getByRole("button", { name: "Delete anyway (discard changes)" }).click();
    await page.waitForURL(ui.srv.url + "/");
    await page.getByRole("status").filter({ hasText: "This task was deleted: Delete me" }).waitFor();
    expect(await page.locator(`.task-card[data-task-id="${task.id}"]`).count()).toBe(0);
    await eventually(async () => (await ui.srv.api("GET", `/tasks/${task.id}`)).status).toBe(404);
    const jobs = (await ui.srv.api("GET", `/cleanup-jobs?taskId=${task.id}`)).body as { trigger: string }[];
    // The delete, then (LIVE-5) the purge waiting for the end of the retention.
    expect(jobs.map((j) => j.trigger)[0]).toBe("delete");
    // The refused first attempt answered 409 by design; nothing else failed.
    expect(pageErrors.filter((e) => !/^http 409 DELETE /.test(e) && !/status of 409/.test(e))).toEqual([]);
  });

  it("WEB-11.3 a task deleted elsewhere while its page is open: back to the board with a notice, no request to the gone task", async () => {
    const { task } = await uniqueRepoAndTask(ui.srv, "Deleted elsewhere");
    const { page, pageErrors } = await openPage(ui.browser, `${ui.srv.url}/tasks/${task.id}`);
    await page.locator("#task-title", { hasText: "Deleted elsewhere" }).waitFor();
    // The page's first reads of the task are answered before the delete: one still on its way
    // when the task goes is the server's honest 404, not a request made after the page knew.
    const answered = async () => (await loadedResources(page)).map((name) => new URL(name).pathname + new URL(name).search);
    for (const read of [
      `/api/v1/tasks/${task.id}/changes`,
      `/api/v1/tasks/${task.id}/sessions`,
      `/api/v1/tasks/${task.id}/workflow-runs`,
      `/api/v1/cleanup-jobs?taskId=${task.id}`,
    ]) {
      await eventually(async () => (await answered()).includes(read)).toBe(true);
    }
    expect((await ui.srv.api("DELETE", `/tasks/${task.id}`)).status).toBe(202);
    await page.waitForURL(ui.srv.url + "/");
    await page.getByRole("status").filter({ hasText: "This task was deleted" }).waitFor();
    expect(pageErrors).toEqual([]);
  });

  it("WEB-11.4 a missing worktree shows Restore, which recreates it in place", async () => {
    const task = await dirtyTask("Lose my worktree");
    const env = (await ui.srv.api("GET", `/tasks/${task.id}/environment`)).body as { repositories: { worktreePath: string }[] };
    const wt = env.repositories[0]!.worktreePath;
    // The agent committed nothing; commit the file so it survives on the branch.
    git(wt, "add", "-A");
    git(wt, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "keep");
    rmSync(wt, { recursive: true, force: true });
    const { page, pageErrors } = await openPage(ui.browser, `${ui.srv.url}/tasks/${task.id}`);
    const warn = page.locator("[data-missing-worktree]");
    await warn.waitFor();
    expect(await warn.textContent()).toContain("missing on disk");
    await shot(page, "ui-missing-worktree");
    await warn.getByRole("button", { name: "Restore worktree" }).click();
    await warn.waitFor({ state: "detached" });
    expect(existsSync(join(wt, "dirty.txt"))).toBe(true);
    await page.locator(".changes tr[data-path='dirty.txt']").waitFor();
    expect(pageErrors).toEqual([]);
  });
});
