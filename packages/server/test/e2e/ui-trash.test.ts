import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { waitForSession } from "../fixture/server.js";
import { eventually, openPage, uiSuite, uniqueRepoAndTask } from "./ui-harness.js";

describe("LIVE-5 web UI: delete asks, the task goes to the trash, Restore brings it back (Chromium)", () => {
  const ui = uiSuite();

  it("LIVE-5: delete → confirm → trash page → Restore: the task with its transcript, then its worktree with the saved work", async () => {
    const { task } = await uniqueRepoAndTask(ui.srv, "Undo my delete");
    const s = await ui.srv.api("POST", `/tasks/${task.id}/sessions`, {
      prompt: "write done.txt committed\ncommit add done\nwrite wip.txt uncommitted\nsay all written",
    });
    await waitForSession(ui.srv.api, s.body.id, ["waiting_for_input"]);
    const slot = (await ui.srv.api("GET", `/sessions/${s.body.id}/workspace`)).body.repositories[0];
    const { page, pageErrors } = await openPage(ui.browser, `${ui.srv.url}/tasks/${task.id}`);

    await page.getByRole("button", { name: "Delete task" }).click();
    const confirm = page.getByRole("alertdialog", { name: "Confirm delete" });
    expect(await confirm.textContent()).toContain("Move “Undo my delete” to the trash?");
    // Keep: nothing happens.
    await confirm.getByRole("button", { name: "Keep the task" }).click();
    await confirm.waitFor({ state: "detached" });
    expect((await ui.srv.api("GET", `/cleanup-jobs?taskId=${task.id}`)).body).toEqual([]);

    await page.getByRole("button", { name: "Delete task" }).click();
    await confirm.getByRole("button", { name: "Move to trash" }).click();
    await confirm.getByRole("button", { name: "Delete anyway (discard changes)" }).click();
    await page.waitForURL(ui.srv.url + "/");
    await page.getByRole("status").filter({ hasText: "It is in the Trash" }).waitFor();

    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Trash" }).click();
    const row = page.locator(`.trash-list tr[data-task-id="${task.id}"]`);
    await row.waitFor();
    expect(await row.textContent()).toContain("Undo my delete");
    // The delete job finishes first (a running one refuses a restore with task_cleanup_in_progress).
    await eventually(
      async () =>
        ((await ui.srv.api("GET", `/cleanup-jobs?taskId=${task.id}`)).body as { trigger: string; state: string }[]).find((j) => j.trigger === "delete")?.state,
    ).toBe("succeeded");
    await row.getByRole("button", { name: "Restore Undo my delete" }).click();
    const done = page.getByRole("status").filter({ hasText: "Restored:" });
    await done.waitFor();
    await eventually(() => page.locator(".trash-list tr").count()).toBe(0);
    await done.getByRole("link", { name: "Undo my delete" }).click();
    await page.waitForURL(`**/tasks/${task.id}`);
    // The transcript is back.
    await page.locator(".session-panel .msg.role-agent", { hasText: "all written" }).waitFor();
    // A new session brings the worktree back with the saved uncommitted work.
    await page.getByRole("button", { name: "Start session" }).click();
    await eventually(async () => ((await ui.srv.api("GET", `/tasks/${task.id}/sessions`)).body as unknown[]).length).toBe(2);
    await eventually(() => {
      try {
        return readFileSync(join(slot.worktreePath, "wip.txt"), "utf8");
      } catch {
        return "";
      }
    }).toBe("uncommitted");
    expect(readFileSync(join(slot.worktreePath, "done.txt"), "utf8")).toBe("committed");
    expect(pageErrors.filter((e) => !/^http 409 DELETE /.test(e) && !/status of 409/.test(e))).toEqual([]);
    await page.close();
  });
});
