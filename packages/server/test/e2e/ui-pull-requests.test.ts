import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gitSync } from "../fixture/git.js";
import { waitForSession } from "../fixture/server.js";
import { addRemote, launch, makeRemoteRepo, remoteWorld, type RemoteWorld } from "../remote/helpers.js";
import { startFakeProvider, type FakeProvider } from "../review/fake-provider.js";
import { axeSerious, eventually, openPage, shot, uiSuite } from "./ui-harness.js";

const KEY = "acme/widget";

describe("landing from the browser: Update from base, Create PR, PR state on the card (Chromium, fake GitHub API)", () => {
  let w: RemoteWorld;
  let fake: FakeProvider;
  const ui = uiSuite(async () => {
    w = await remoteWorld("sqlite", "github", { env: { GROVE_PR_REFRESH_MS: "0" } });
    return w.srv;
  });
  let remote: ReturnType<typeof makeRemoteRepo>;
  beforeAll(async () => {
    remote = makeRemoteRepo(w.root, KEY, { "README.md": "# widget\n" });
    fake = await startFakeProvider("github", w.token, `${w.http.url}/${KEY}`);
  });
  afterAll(async () => {
    await fake?.close();
    // The Grove server is closed by uiSuite; the git host and its repositories here.
    await w?.http.close();
  });

  it("UX-2 REV-2 REV-3 the review view updates from base and creates a PR; the board card follows the PR's state live", async () => {
    const { srv, browser } = ui;
    const repo = await addRemote(srv, { url: `${w.http.url}/${KEY}`, provider: "github", credential: { token: w.token }, apiUrl: fake.apiUrl });
    const { task, session } = await launch(srv, [{ repositoryId: repo.id }], "Land me from the page");
    expect((await srv.api("POST", `/sessions/${session.id}/prompt`, { prompt: "write f.txt F\ncommit task work" })).status).toBe(202);
    await waitForSession(srv.api, session.id, ["waiting_for_input"]);
    const worktree = (await srv.api("GET", `/sessions/${session.id}/workspace`)).body.repositories[0].worktreePath as string;

    const board = await openPage(browser, `${srv.url}/`);
    const card = board.page.locator(`.task-card[data-task-id="${task.id}"]`);
    await card.waitFor();
    expect(await card.locator(".badge.pr").count()).toBe(0);

    const review = await openPage(browser, `${srv.url}/tasks/${task.id}/review`);
    const land = review.page.getByRole("region", { name: "Review actions" });
    await land.waitFor();

    // Update from base: main moved on the host; the task's commit is replayed on top of it.
    const mainTip = remote.commit("base.txt", "new on main\n", "main: base.txt");
    await land.getByRole("button", { name: "Update from base" }).click();
    await eventually(() => land.getByRole("status").textContent()).toBe("Updated from base.");
    expect(gitSync(worktree, "rev-parse", "HEAD^").trim()).toBe(mainTip);
    expect(gitSync(worktree, "log", "-1", "--format=%s").trim()).toBe("task work");
    expect(existsSync(join(worktree, "base.txt"))).toBe(true);

    // Create PR: pushed and opened on the (fake) host; the review view and the card show it.
    await land.getByRole("button", { name: "Create PR" }).click();
    await eventually(() => land.locator(".pr-status").textContent()).toMatch(/^PR #1 open · checks none$/);
    expect(fake.prs).toHaveLength(1);
    expect(fake.prs[0]).toMatchObject({ head: gitSync(worktree, "rev-parse", "--abbrev-ref", "HEAD").trim(), base: "main", state: "open" });
    await shot(review.page, "ui-pr-review");
    expect(await axeSerious(review.page)).toEqual([]);

    // The board never reloads: each pull_request.updated arrives as a task.summary frame.
    const prBadge = board.page.locator(`.task-card[data-task-id="${task.id}"] .badge.pr`);
    await eventually(() => prBadge.textContent()).toBe("PR #1 open");
    await board.page.locator(`.column[data-state=review] .task-card[data-task-id="${task.id}"]`).waitFor();
    fake.checks = [{ name: "lint", state: "failure", summary: "lint: 3 errors" }];
    expect((await srv.api("POST", `/tasks/${task.id}/pull-requests/refresh`)).status).toBe(200);
    await eventually(() => prBadge.textContent()).toBe("PR #1 open · checks failure");
    expect(await prBadge.getAttribute("href")).toBe(`${w.http.url}/${KEY}/pull/1`);
    await shot(board.page, "ui-pr-board", false);
    fake.checks = [{ name: "lint", state: "success", summary: "clean" }];
    fake.prs[0]!.state = "merged";
    expect((await srv.api("POST", `/tasks/${task.id}/pull-requests/refresh`)).status).toBe(200);
    await board.page.locator(`.column[data-state=done] .task-card[data-task-id="${task.id}"] .badge.pr[data-pr-state=merged]`).waitFor();
    expect(await prBadge.textContent()).toBe("PR #1 merged · checks success");

    expect(board.pageErrors).toEqual([]);
    expect(review.pageErrors).toEqual([]);
  }, 120_000);
});
