import { describe, expect, it } from "vitest";
import { waitForSession } from "../fixture/server.js";
import { axeSerious, eventually, openPage, shot, uiSuite, uniqueRepoAndTask } from "./ui-harness.js";

/** The refused plain archive of a task with open subtasks is the page's question, not a failure. */
const unexpected = (errors: string[]) => errors.filter((e) => !/^http 409 POST .*\/archive$/.test(e) && !/status of 409/.test(e));

describe("MCP-3.7 web UI: Archive of a task with open subtasks asks what becomes of them (Chromium)", () => {
  const ui = uiSuite();

  /** A task whose agent made one subtask through `subtask_create`. */
  async function parentWithSubtask(title: string): Promise<{ parent: string; kid: string }> {
    const { task } = await uniqueRepoAndTask(ui.srv, title);
    const s = await ui.srv.api("POST", `/tasks/${task.id}/sessions`, { prompt: `mcp subtask_create {"title":"${title} kid"}` });
    expect(s.status).toBe(201);
    await waitForSession(ui.srv.api, s.body.id, ["waiting_for_input"]);
    const kids = (await ui.srv.api("GET", `/tasks?parentId=${task.id}`)).body as { id: string }[];
    expect(kids).toHaveLength(1);
    return { parent: task.id, kid: kids[0]!.id };
  }
  const archivedAt = async (id: string) => (await ui.srv.api("GET", `/tasks/${id}`)).body.archivedAt as string | null;
  const jobs = async (id: string) => (await ui.srv.api("GET", `/cleanup-jobs?taskId=${id}`)).body as { state: string }[];

  it("MCP-3.7 the dialog takes focus, passes axe, Escape cancels with nothing archived; the keyboard picks Archive only this task; the subtask's own Archive asks nothing", async () => {
    const { parent, kid } = await parentWithSubtask("Keeper");
    const { page, pageErrors } = await openPage(ui.browser, `${ui.srv.url}/tasks/${parent}`);
    const archive = page.getByRole("button", { name: "Archive", exact: true });
    await archive.click();
    const dialog = page.getByRole("alertdialog", { name: "“Keeper” has 1 open subtask" });
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain("leave them open");
    await eventually(() => page.evaluate(() => document.activeElement?.textContent)).toBe("Archive subtasks too");
    expect(await axeSerious(page)).toEqual([]);
    await shot(page, "ui-archive-subtasks");
    // The question changed nothing.
    expect(await archivedAt(parent)).toBeNull();
    expect(await jobs(parent)).toEqual([]);

    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
    await eventually(() => page.evaluate(() => document.activeElement?.textContent)).toBe("Archive");
    expect(await jobs(parent)).toEqual([]);
    expect(await jobs(kid)).toEqual([]);

    await page.keyboard.press("Enter");
    await dialog.waitFor();
    await eventually(() => page.evaluate(() => document.activeElement?.textContent)).toBe("Archive subtasks too");
    await page.keyboard.press("Tab");
    await eventually(() => page.evaluate(() => document.activeElement?.textContent)).toBe("Archive only this task");
    await page.keyboard.press("Enter");
    await dialog.waitFor({ state: "detached" });
    const job = page.locator(".jobs tbody tr", { hasText: "archive" });
    await eventually(() => job.getAttribute("data-state")).toBe("succeeded");
    expect(await archivedAt(parent)).not.toBeNull();
    expect(await archivedAt(kid)).toBeNull();
    expect(await jobs(kid)).toEqual([]);

    // The subtask has no open subtasks of its own: its Archive archives at once, as before.
    await page.goto(`${ui.srv.url}/tasks/${kid}`);
    await page.getByRole("button", { name: "Archive", exact: true }).click();
    await eventually(() => page.locator(".jobs tbody tr", { hasText: "archive" }).getAttribute("data-state")).toBe("succeeded");
    expect(await page.getByRole("alertdialog").count()).toBe(0);
    expect(await archivedAt(kid)).not.toBeNull();
    expect(unexpected(pageErrors)).toEqual([]);
  });

  it("MCP-3.7 Archive subtasks too archives the task and its open subtask", async () => {
    const { parent, kid } = await parentWithSubtask("Sweeper");
    const { page, pageErrors } = await openPage(ui.browser, `${ui.srv.url}/tasks/${parent}`);
    await page.getByRole("button", { name: "Archive", exact: true }).click();
    const dialog = page.getByRole("alertdialog", { name: "“Sweeper” has 1 open subtask" });
    await dialog.getByRole("button", { name: "Archive subtasks too" }).click();
    await dialog.waitFor({ state: "detached" });
    await eventually(() => page.locator(".jobs tbody tr", { hasText: "archive" }).getAttribute("data-state")).toBe("succeeded");
    await eventually(async () => (await jobs(kid))[0]?.state).toBe("succeeded");
    expect(await archivedAt(parent)).not.toBeNull();
    expect(await archivedAt(kid)).not.toBeNull();
    expect(unexpected(pageErrors)).toEqual([]);
  });
});
