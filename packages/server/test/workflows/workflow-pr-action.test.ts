import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ONE_DATABASE } from "../fixture/db.js";
import { waitForSession } from "../fixture/server.js";
import { addRemote, launch, makeRemoteRepo, remoteWorld, type RemoteWorld } from "../remote/helpers.js";
import { startFakeProvider, type FakeProvider } from "../review/fake-provider.js";
import { applyWorkflow, runsOf, waitForRun } from "./helpers.js";

/**
 * Entering Review opens the pull request (or pushes to it); never merged, never forced. In
 * Progress sends the open comments (there are none: a skipped run marks the entry as seen).
 */
const PR = `steps:
  - id: in_progress
    onEnter:
      - action: send_comments
  - id: review
    onEnter:
      - action: pr
        title: "Grove: {{title}}"
        body: "{{brief}}"
        draft: true
`;

/** Moves the task back to In Progress and waits until the engine saw that entry (before a quick move on). */
async function backToWork(srv: RemoteWorld["srv"], taskId: string): Promise<void> {
  const seen = (await runsOf(srv, taskId)).filter((r) => r.action === "send_comments").length;
  expect((await srv.api("PATCH", `/tasks/${taskId}`, { state: "in_progress" })).status).toBe(200);
  await waitForRun(srv, taskId, "the In Progress entry", (_r, all) => all.filter((r) => r.action === "send_comments" && r.state === "skipped").length > seen);
}

const git = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, encoding: "utf8" }).trim();

// WF-2.15 against the fake GitHub REST API and a real git remote.
describe.each(ONE_DATABASE)("WF-2.15 the pr action (%s)", { timeout: 240_000 }, (kind) => {
  let w: RemoteWorld;
  let fake: FakeProvider;

  beforeAll(async () => {
    w = await remoteWorld(kind, "github", { env: { GROVE_PR_REFRESH_MS: "0" } });
    makeRemoteRepo(w.root, "acme/widget", { "README.md": "# widget\n" });
    fake = await startFakeProvider("github", w.token, `${w.http.url}/acme/widget`);
  }, 90_000);
  afterAll(async () => {
    await fake?.close();
    await w?.close();
  });

  it("WF-2.15 entering Review opens the task's pull request, a later entry pushes to it, a rewritten branch is refused without forcePush; nothing is merged", async () => {
    const srv = w.srv;
    const bare = join(w.root, "acme/widget.git");
    const repo = await addRemote(srv, { url: `${w.http.url}/acme/widget`, provider: "github", credential: { token: w.token }, apiUrl: fake.apiUrl });
    await applyWorkflow(srv, "pr", PR);
    const { task, session } = await launch(srv, [{ repositoryId: repo.id }], "Add f");
    const work = async (script: string) => {
      expect((await srv.api("POST", `/sessions/${session.id}/prompt`, { prompt: script })).status).toBe(202);
      await waitForSession(srv.api, session.id, ["waiting_for_input"]);
    };
    await work("write f.txt F\ncommit add f");

    // First entry: the pull request is opened with the rendered title, as a draft.
    expect((await srv.api("PATCH", `/tasks/${task.id}`, { state: "review" })).status).toBe(200);
    const opened = await waitForRun(srv, task.id, "the pr run", (r) => r.action === "pr" && r.state !== "pending" && r.state !== "running", 60_000);
    const worktree = (await srv.api("GET", `/tasks/${task.id}/environment`)).body.repositories[0].worktreePath as string;
    const branch = git(worktree, "rev-parse", "--abbrev-ref", "HEAD");
    const first = git(worktree, "rev-parse", "HEAD");
    expect([opened.state, opened.outcome]).toEqual(["succeeded", `opened #1 at ${first.slice(0, 12)}`]);
    expect(fake.prs.map((p) => [p.number, p.title, p.draft, p.head, p.state])).toEqual([[1, "Grove: Add f", true, branch, "open"]]);
    expect(git(bare, "rev-parse", branch)).toBe(first);

    // Second entry: a new commit is pushed to the same pull request.
    await backToWork(srv, task.id);
    await work("write g.txt G\ncommit add g");
    const second = git(worktree, "rev-parse", "HEAD");
    expect((await srv.api("PATCH", `/tasks/${task.id}`, { state: "review" })).status).toBe(200);
    const updated = await waitForRun(
      srv,
      task.id,
      "the second pr run",
      (r, all) => r.action === "pr" && r.id !== opened.id && r.state !== "pending" && r.state !== "running" && all.length > 0,
      60_000,
    );
    expect([updated.state, updated.outcome]).toEqual(["succeeded", `updated #1 at ${second.slice(0, 12)}`]);
    expect(fake.prs).toHaveLength(1);
    expect(git(bare, "rev-parse", branch)).toBe(second);

    // Third entry after a rewrite of the pushed commit: a force-push would be needed; refused.
    await backToWork(srv, task.id);
    git(worktree, "-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-q", "--amend", "-m", "add g, reworded");
    expect((await srv.api("PATCH", `/tasks/${task.id}`, { state: "review" })).status).toBe(200);
    const refused = await waitForRun(srv, task.id, "the refused pr run", (r) => r.action === "pr" && r.state === "failed", 60_000);
    expect(refused.outcome).toMatch(/^push_rejected: .*needs a force-push, which the workflow does not allow \(forcePush: true\)$/);
    expect(git(bare, "rev-parse", branch)).toBe(second);
    expect((await runsOf(srv, task.id)).filter((r) => r.action === "pr").map((r) => r.state)).toEqual(["succeeded", "succeeded", "failed"]);
    // Never merged: the pull request is open and no merge was asked of the provider.
    expect(fake.prs[0]!.state).toBe("open");
    expect(fake.seen.filter((s) => /merge/.test(s.path))).toEqual([]);
  });

  it("WF-2.15 forcePush: true updates the pull request after a rewrite, with a lease on Grove's last push", async () => {
    const srv = w.srv;
    const bare = join(w.root, "acme/gadget.git");
    makeRemoteRepo(w.root, "acme/gadget", { "README.md": "# gadget\n" });
    const gadget = await startFakeProvider("github", w.token, `${w.http.url}/acme/gadget`);
    const repo = await addRemote(srv, { url: `${w.http.url}/acme/gadget`, provider: "github", credential: { token: w.token }, apiUrl: gadget.apiUrl });
    await applyWorkflow(srv, "pr", `repositoryId: ${repo.id}\n${PR}        forcePush: true\n`);
    const { task, session } = await launch(srv, [{ repositoryId: repo.id }], "Force it");
    expect((await srv.api("POST", `/sessions/${session.id}/prompt`, { prompt: "write h.txt H\ncommit add h" })).status).toBe(202);
    await waitForSession(srv.api, session.id, ["waiting_for_input"]);
    expect((await srv.api("PATCH", `/tasks/${task.id}`, { state: "review" })).status).toBe(200);
    const opened = await waitForRun(srv, task.id, "the pr run", (r) => r.action === "pr" && r.state === "succeeded", 60_000);
    const worktree = (await srv.api("GET", `/tasks/${task.id}/environment`)).body.repositories[0].worktreePath as string;
    const branch = git(worktree, "rev-parse", "--abbrev-ref", "HEAD");
    await backToWork(srv, task.id);
    git(worktree, "-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-q", "--amend", "-m", "add h, reworded");
    const rewritten = git(worktree, "rev-parse", "HEAD");
    expect((await srv.api("PATCH", `/tasks/${task.id}`, { state: "review" })).status).toBe(200);
    const run = await waitForRun(
      srv,
      task.id,
      "the forced pr run",
      (r) => r.action === "pr" && r.id !== opened.id && r.state !== "pending" && r.state !== "running",
      60_000,
    );
    expect([run.state, run.outcome]).toEqual(["succeeded", `updated #1 at ${rewritten.slice(0, 12)}`]);
    expect(git(bare, "rev-parse", branch)).toBe(rewritten);
    expect(gadget.prs.map((p) => p.state)).toEqual(["open"]);
    await gadget.close();
  });
});
