import { describe, expect, it } from "vitest";
import { waitFor, waitForSession } from "../fixture/server.js";
import { mcpAnswers } from "../mcp/helpers.js";
import { axeSerious, eventually, openPage, uniqueRepoAndTask, uiSuite } from "./ui-harness.js";

/**
 * MCP-2/MCP-3 in Chromium: an agent's `report_progress` and its subtasks, shown to the person on
 * the board's card and on the task page, kept live by the event stream (no reload).
 */
describe("MCP-2/MCP-3 progress and subtasks on the board and the task page (Chromium)", () => {
  const ui = uiSuite();

  it("MCP-2 MCP-3: the card shows 'n of m done · status' and 'n subtasks · m done'; the task page a live Progress section and its subtasks with state and link; a subtask's page links its parent", async () => {
    const { srv, browser } = ui;
    const { page, pageErrors } = await openPage(browser, srv.url + "/");
    await eventually(() => page.locator("#live").textContent()).toBe("live");
    const { task: parent } = await uniqueRepoAndTask(srv, "Lantern parent");
    const s = await srv.api("POST", `/tasks/${parent.id}/sessions`, {
      prompt: [
        'mcp report_progress {"status":"writing the docs","plan":[{"content":"code the glow","status":"completed"},{"content":"write the docs","status":"in_progress"},{"content":"polish","status":"pending"}]}',
        'mcp subtask_create {"title":"Lantern code"}',
        'mcp subtask_create {"title":"Lantern docs"}',
      ].join("\n"),
    });
    expect(s.status).toBe(201);
    const sid = s.body.id as string;
    await waitForSession(srv.api, sid, ["waiting_for_input"]);
    const [, a, b] = await mcpAnswers(srv, sid);
    const [codeId, docsId] = [a.task.id as string, b.task.id as string];

    // The board's card, from its summary.
    const card = page.locator(`article.task-card[data-task-id="${parent.id}"]`);
    await eventually(() => card.locator(".card-progress").textContent()).toBe("1 of 3 done · writing the docs");
    await eventually(() => card.locator(".card-subtasks").textContent()).toBe("2 subtasks · 0 done");
    // Live: a subtask moved to done, a newer report.
    expect((await srv.api("PATCH", `/tasks/${codeId}`, { state: "done" })).status).toBe(200);
    await eventually(() => card.locator(".card-subtasks").textContent()).toBe("2 subtasks · 1 done");
    expect(await axeSerious(page)).toEqual([]);

    // The parent's page: the Progress section and the subtasks.
    await card.getByRole("link", { name: "Lantern parent" }).click();
    await eventually(() => page.locator("#task-title").textContent()).toBe("Lantern parent");
    const progress = page.getByRole("region", { name: "Progress" });
    await eventually(() => progress.locator("#progress-status").textContent()).toBe("writing the docs");
    expect(await progress.locator("#progress-count").textContent()).toBe("1 of 3 done");
    expect(await progress.locator("li").evaluateAll((els) => els.map((e) => [e.getAttribute("data-status"), e.textContent]))).toEqual([
      ["completed", "Done code the glow"],
      ["in_progress", "In progress write the docs"],
      ["pending", "To do polish"],
    ]);
    const subtasks = page.getByRole("region", { name: "Subtasks" });
    await eventually(() => subtasks.locator("li").evaluateAll((els) => els.map((e) => [e.getAttribute("data-task-id"), e.getAttribute("data-state")]))).toEqual(
      [
        [codeId, "done"],
        [docsId, "todo"],
      ],
    );
    expect(
      await subtasks
        .getByRole("link")
        .evaluateAll((els) => els.map((e) => [e.textContent, (e as { getAttribute(n: string): string | null }).getAttribute("href")])),
    ).toEqual([
      ["Lantern code", `/tasks/${codeId}`],
      ["Lantern docs", `/tasks/${docsId}`],
    ]);
    expect(await subtasks.textContent()).toContain("2 subtasks · 1 done");

    // Live on the page: the agent's next report and a subtask's move arrive without a reload.
    expect(
      (
        await srv.api("POST", `/sessions/${sid}/prompt`, {
          prompt:
            'mcp report_progress {"status":"polishing","plan":[{"content":"code the glow","status":"completed"},{"content":"write the docs","status":"completed"},{"content":"polish","status":"in_progress"}]}',
        })
      ).status,
    ).toBe(202);
    await eventually(() => progress.locator("#progress-status").textContent()).toBe("polishing");
    expect(await progress.locator("#progress-count").textContent()).toBe("2 of 3 done");
    // A change of the task that is not a report (its frame carries no progress) keeps the section.
    expect((await srv.api("PATCH", `/tasks/${parent.id}`, { description: "light the way" })).status).toBe(200);
    await eventually(() => page.locator(".description").textContent()).toBe("light the way");
    expect(await progress.locator("#progress-status").textContent()).toBe("polishing");
    expect((await srv.api("PATCH", `/tasks/${docsId}`, { state: "review" })).status).toBe(200);
    await eventually(() => subtasks.locator(`li[data-task-id="${docsId}"]`).getAttribute("data-state")).toBe("review");
    // A subtask made now joins the list.
    await waitForSession(srv.api, sid, ["waiting_for_input"]);
    expect((await srv.api("POST", `/sessions/${sid}/prompt`, { prompt: 'mcp subtask_create {"title":"Lantern polish"}' })).status).toBe(202);
    await eventually(() => subtasks.locator("li").count()).toBe(3);
    expect(await axeSerious(page)).toEqual([]);

    // A subtask's page links its parent.
    await subtasks.getByRole("link", { name: "Lantern docs" }).click();
    await eventually(() => page.locator("#task-title").textContent()).toBe("Lantern docs");
    await eventually(() => page.locator("#task-parent").textContent()).toBe("Subtask of Lantern parent");
    expect(await page.getByRole("region", { name: "Subtasks" }).count()).toBe(0);
    expect(await axeSerious(page)).toEqual([]);
    await page.locator("#task-parent").getByRole("link", { name: "Lantern parent" }).click();
    await eventually(() => page.locator("#task-title").textContent()).toBe("Lantern parent");
    await waitFor(async () => (await srv.api("GET", `/tasks?parentId=${parent.id}`)).body.length === 3, "three subtasks");
    expect(pageErrors).toEqual([]);

    // A page opened after the report: the first frame it sees of the task carries no progress;
    // opening the task then still shows the progress (read with the task, not taken from the frame).
    const fresh = await openPage(browser, srv.url + "/");
    await eventually(() => fresh.page.locator("#live").textContent()).toBe("live");
    const freshCard = fresh.page.locator(`article.task-card[data-task-id="${parent.id}"]`);
    await eventually(() => freshCard.locator(".card-progress").textContent()).toBe("2 of 3 done · polishing");
    expect((await srv.api("PATCH", `/tasks/${parent.id}`, { description: "light the whole way" })).status).toBe(200);
    await eventually(() => srv.api("GET", `/tasks/${parent.id}`).then((r) => r.body.description)).toBe("light the whole way");
    await freshCard.getByRole("link", { name: "Lantern parent" }).click();
    await eventually(() => fresh.page.locator(".description").textContent()).toBe("light the whole way");
    await eventually(() => fresh.page.locator("#progress-status").textContent()).toBe("polishing");
    expect(fresh.pageErrors).toEqual([]);
  }, 180_000);
});
