import { type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, waitForSession, type TestServer } from "../fixture/server.js";
import { eventually, launchBrowser, openPage, shot, uniqueRepoAndTask } from "./ui-harness.js";

describe("UX-2 web UI: archive, unarchive, delete and cleanup jobs (Chromium)", () => {
  let browser: Browser;
  let srv: TestServer;
  beforeAll(async () => {
    browser = await launchBrowser();
    srv = await startTestServer("sqlite");
  });
  afterAll(async () => {
    await browser?.close();
    await srv?.close();
  });

  /** A task whose worktree exists, with the agent's uncommitted file in it. */
  async function dirtyTask(title: string) {
    const { task } = await uniqueRepoAndTask(srv, title);
    const s = await srv.api("POST", `/tasks/${task.id}/sessions`, { prompt: "write dirty.txt not committed" });
    expect(s.status).toBe(201);
    await waitForSession(srv.api, s.body.id, ["waiting_for_input"]);
    return task;
  }

  it("WEB-11.1 Archive runs a cleanup job shown live with its state and attempts; Unarchive brings the task back", async () => {
    const task = await dirtyTask("Archive me");
    const { page, pageErrors } = await openPage(browser, `${srv.url}/tasks/${task.id}`);
    await page.getByRole("button", { name: "Archive" }).click();
    const job = page.locator(".jobs tbody tr", { hasText: "archive" });
    await job.waitFor();
    // The job reaches its end state through cleanup_job.updated events (no reload).
    await eventually(() => job.getAttribute("data-state")).toBe("succeeded");
    const jobs = (await srv.api("GET", `/cleanup-jobs?taskId=${task.id}`)).body as { id: string; attempts: number; state: string }[];
    expect(jobs).toHaveLength(1);
    expect(await job.getAttribute("data-job-id")).toBe(jobs[0]!.id);
    expect(await job.locator("td.num").textContent()).toBe(String(jobs[0]!.attempts));
    await page.getByRole("button", { name: "Unarchive" }).waitFor();
    await page.locator(".task-head .badge.archived").waitFor();
    // The worktree is gone: the Changes panel re-reads and agrees with the API.
    const changes = (await srv.api("GET", `/tasks/${task.id}/changes`)).body as { repositories: { files: { path: string }[] }[] };
    const listed = changes.repositories.flatMap((r) => r.files.map((f) => f.path));
    await eventually(() => page.locator(".changes tr[data-path]").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-path")))).toEqual(listed);
    await shot(page, "ui-archived");

    await page.getByRole("button", { name: "Unarchive" }).click();
    await page.getByRole("button", { name: "Archive" }).waitFor();
    await eventually(() => page.locator(".task-head .badge.archived").count()).toBe(0);
    expect((await srv.api("GET", `/tasks/${task.id}`)).body.archivedAt).toBeNull();
    expect(pageErrors).toEqual([]);
  });

  it("WEB-11.2 Delete of a dirty worktree asks first (409 dirty_worktree); Keep changes nothing, Discard deletes", async () => {
    const task = await dirtyTask("Delete me");
    const { page, pageErrors } = await openPage(browser, `${srv.url}/tasks/${task.id}`);
    await page.getByRole("button", { name: "Delete task" }).click();
    const confirm = page.getByRole("alertdialog", { name: "Confirm delete" });
    await confirm.waitFor();
    expect(await confirm.textContent()).toMatch(/dirty_worktree: /);
    await shot(page, "ui-delete-confirm");
    await confirm.getByRole("button", { name: "Keep the task" }).click();
    await confirm.waitFor({ state: "detached" });
    expect((await srv.api("GET", `/tasks/${task.id}`)).status).toBe(200);
    expect((await srv.api("GET", `/cleanup-jobs?taskId=${task.id}`)).body).toEqual([]);
    await eventually(() => page.locator(".jobs tbody tr").count()).toBe(0);

    await page.getByRole("button", { name: "Delete task" }).click();
    await confirm.getByRole("button", { name: "Discard uncommitted changes and delete" }).click();
    await page.locator(".jobs tbody tr").first().waitFor();
    const jobs = (await srv.api("GET", `/cleanup-jobs?taskId=${task.id}`)).body as { id: string; trigger: string }[];
    expect(jobs.map((j) => j.trigger)).toEqual(["delete"]);
    expect(await page.locator(".jobs tbody tr").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-job-id")))).toEqual([jobs[0]!.id]);
    await page.getByRole("status").filter({ hasText: "This task was deleted" }).waitFor();
    await eventually(async () => (await srv.api("GET", `/tasks/${task.id}`)).status).toBe(404);
    expect(pageErrors).toEqual([]);
  });
});
