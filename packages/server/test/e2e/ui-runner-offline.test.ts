import type { Kysely } from "kysely";
import { describe, expect, it } from "vitest";
import type { DB } from "../../src/store/schema.js";
import { startTestServer } from "../fixture/server.js";
import { axeSerious, eventually, openPage, shot, uiSuite, uniqueRepoAndTask } from "./ui-harness.js";

describe("runner offline on the board and the task page (Chromium)", () => {
  // A fast heartbeat: the server's watch of the registry runs at each beat.
  const ui = uiSuite(() => startTestServer("sqlite", undefined, { GROVE_RUNNER_HEARTBEAT_MS: "100" }));

  it("RUN-20 BOARD-6 UX-2 a task whose runner's heartbeat goes stale shows a runner-offline badge on its card and its page, live, and loses it when the runner beats again", async () => {
    const { srv, browser } = ui;
    const store = srv.server.deps.store;
    const onDb = (fn: (db: Kysely<DB>) => Promise<unknown>) => store.transaction((trx) => fn(trx as Kysely<DB>));
    const { task } = await uniqueRepoAndTask(srv, "Lives on a far runner");
    const { task: local } = await uniqueRepoAndTask(srv, "Has no environment");
    // Another runner, online for now, holds the task's environment (as placement would have written it).
    const now = new Date().toISOString();
    await store.runners.register({
      id: "runner_far",
      host: "far",
      url: "http://127.0.0.1:9",
      labels: [],
      maxAgents: null,
      liveAgents: 0,
      version: "0.0.0",
      heartbeatMs: 60_000,
      startedAt: now,
      lastSeenAt: now,
      stoppedAt: null,
      credentialKeyId: null,
    });
    await onDb((db) =>
      db
        .insertInto("task_environments")
        .values({
          id: "env_far",
          task_id: task.id,
          status: "ready",
          workspace_path: null,
          runner_id: "runner_far",
          materializer_session_id: null,
          created_at: now,
          updated_at: now,
        })
        .execute(),
    );
    const setLastSeen = (at: string) => onDb((db) => db.updateTable("runners").set({ last_seen_at: at }).where("id", "=", "runner_far").execute());

    const board = await openPage(browser, `${srv.url}/`);
    const card = board.page.locator(`.task-card[data-task-id="${task.id}"]`);
    const cardBadge = card.locator(".badge.runner-offline");
    await card.waitFor();
    await board.page.locator(`.task-card[data-task-id="${local.id}"]`).waitFor();
    expect(await cardBadge.count()).toBe(0);

    // Its heartbeat goes stale (nobody announces a dead runner): the open board learns it live.
    await setLastSeen(new Date(Date.now() - 10 * 60_000).toISOString());
    await eventually(() => cardBadge.textContent()).toBe("runner runner_far offline");
    expect(await board.page.locator(`.task-card[data-task-id="${local.id}"] .badge.runner-offline`).count()).toBe(0);

    // A board opened now reads it from the list; the task page from GET /tasks/:id.
    const fresh = await openPage(browser, `${srv.url}/`);
    await fresh.page.locator(`.task-card[data-task-id="${task.id}"] .badge.runner-offline[data-runner-state=offline]`).waitFor();
    await shot(fresh.page, "ui-runner-offline-board", false);
    expect(await axeSerious(fresh.page)).toEqual([]);
    const taskPage = await openPage(browser, `${srv.url}/tasks/${task.id}`);
    const pageBadge = taskPage.page.locator("#task-runner-offline");
    await eventually(() => pageBadge.textContent()).toBe("runner runner_far offline");
    // The environment section says where the worktrees are, not "not created yet".
    await eventually(() => taskPage.page.locator("#environment-runner-offline").textContent()).toContain("On runner runner_far, which is offline");
    expect(await taskPage.page.getByText("Not created yet").count()).toBe(0);
    await shot(taskPage.page, "ui-runner-offline-task");
    // Moving the task (its PATCH answer and task.updated frame carry the row only) keeps the badge.
    await taskPage.page.locator("select[name=state]").selectOption("review");
    await taskPage.page.getByRole("button", { name: "Move", exact: true }).click();
    await taskPage.page.locator("#task-state[data-state=review]").waitFor();
    await board.page.locator(`.column[data-state=review] .task-card[data-task-id="${task.id}"] .badge.runner-offline`).waitFor();
    expect(await pageBadge.textContent()).toBe("runner runner_far offline");

    // It beats again: runner.updated reaches both pages, the badges go without a reload.
    await setLastSeen(new Date().toISOString());
    await eventually(() => cardBadge.count()).toBe(0);
    await eventually(() => fresh.page.locator(".badge.runner-offline").count()).toBe(0);
    await eventually(() => pageBadge.count()).toBe(0);

    expect(board.pageErrors).toEqual([]);
    expect(fresh.pageErrors).toEqual([]);
    // The task page asks for the task's Changes, which its runner answers: refused while it is
    // offline, unreachable once "online" (no such server here). Nothing else may fail.
    expect(taskPage.pageErrors.filter((e) => !/\/tasks\/[^/]+\/(changes|environment)|Failed to load resource/.test(e))).toEqual([]);
  }, 120_000);
});
