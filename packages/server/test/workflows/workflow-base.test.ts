import { writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ONE_DATABASE } from "../fixture/db.js";
import { gitSync, makeRepo } from "../fixture/git.js";
import { serverPerTest, waitFor, waitForSession, type TestServer } from "../fixture/server.js";
import { type Run, runsOf } from "./helpers.js";

type Message = { role: string; text: string };

const trigger = (maxRounds: number) => `steps:\n  - id: review\ntriggers:\n  baseMoved:\n    maxRounds: ${maxRounds}\n    pollSeconds: 3600\n`;

const baseRuns = async (srv: TestServer, taskId: string) => (await runsOf(srv, taskId)).filter((r) => r.cause === "base_moved");
const ended = (r: Run) => r.state !== "pending" && r.state !== "running";
const poll = async (srv: TestServer) => {
  await srv.server.orchestrator.workflows.engine.baseWatch.poll(true);
  await srv.server.orchestrator.workflows.engine.flush();
};
/** A commit on the base branch in the repository itself: the base moves on. */
const commitOnBase = (repo: string, file: string, text: string) => {
  writeFileSync(`${repo}/${file}`, text);
  gitSync(repo, "add", file);
  gitSync(repo, "commit", "-q", "-m", `base: ${file}`);
  return gitSync(repo, "rev-parse", "HEAD").trim();
};

describe.each(ONE_DATABASE)("WF-2.20 the base moved → update from base, the agent only on conflicts (%s)", { timeout: 240_000 }, (kind) => {
  const perTest = serverPerTest(kind);

  async function setup(maxRounds: number) {
    const srv = await perTest.start();
    const repo = perTest.track(await makeRepo({ name: "base-moves", files: { "f.txt": "one\n" } }));
    const repositoryId = (await srv.api("POST", "/repositories", { path: repo.path })).body.id as string;
    expect((await srv.api("PUT", "/workflows/base", trigger(maxRounds))).status).toBe(200);
    const taskId = (await srv.api("POST", "/tasks", { title: "Base task", repositories: [{ repositoryId }] })).body.id as string;
    const s = await srv.api("POST", `/tasks/${taskId}/sessions`, { prompt: "write f.txt task\\n\ncommit task edits f" });
    await waitForSession(srv.api, s.body.id, ["waiting_for_input"]);
    const worktree = (await srv.api("GET", `/sessions/${s.body.id}/workspace`)).body.repositories[0].worktreePath as string;
    return { srv, repo: repo.path, repositoryId, taskId, sessionId: s.body.id as string, worktree };
  }

  it("WF-2.20 a base that moves without conflict → the branch is updated onto it, nothing goes to the agent; an unmoved base queues nothing", async () => {
    const { srv, repo, taskId, sessionId, worktree } = await setup(3);
    await poll(srv);
    expect(await baseRuns(srv, taskId)).toEqual([]);
    const base = commitOnBase(repo, "g.txt", "base\n");
    await poll(srv);
    const [run] = await waitFor(async () => {
      const runs = await baseRuns(srv, taskId);
      return runs.length === 1 && ended(runs[0]!) ? runs : undefined;
    }, "the update ran");
    expect(run).toMatchObject({ action: "update_base", state: "succeeded", outcome: `updated onto ${base.slice(0, 12)}`, sessionId: null });
    expect(gitSync(worktree, "merge-base", "--is-ancestor", base, "HEAD")).toBe("");
    expect(gitSync(worktree, "show", "HEAD:f.txt")).toBe("task\n");
    const prompts = ((await srv.api("GET", `/sessions/${sessionId}/messages`)).body as Message[]).filter((m) => m.role === "user");
    expect(prompts).toHaveLength(1);
    // The branch now holds the base: the next poll queues nothing.
    await poll(srv);
    expect(await baseRuns(srv, taskId)).toHaveLength(1);
  });

  it("WF-2.20 a conflicting base → its conflicts to the working session; past the round cap the update is aborted, one inbox item, no prompt", async () => {
    const { srv, repo, repositoryId, taskId, sessionId, worktree } = await setup(1);
    commitOnBase(repo, "f.txt", "base edits f\n");
    await poll(srv);
    const first = await waitFor(async () => {
      const runs = await baseRuns(srv, taskId);
      return runs.length === 1 && ended(runs[0]!) ? runs[0] : undefined;
    }, "the first round ended");
    expect(first).toMatchObject({ state: "succeeded", sessionId, outcome: "turn completed" });
    const prompts = ((await srv.api("GET", `/sessions/${sessionId}/messages`)).body as Message[]).filter((m) => m.role === "user");
    expect(prompts.at(-1)!.text).toMatch(/^Conflict \(rebase\) in base-moves: f\.txt, lines/m);
    // The rebase stays stopped for a person (the review code's LIVE-4 item), and the trigger leaves it alone.
    await poll(srv);
    expect(await baseRuns(srv, taskId)).toHaveLength(1);
    expect((await srv.api("POST", `/tasks/${taskId}/update-from-base/abort`, { repositoryId })).status).toBe(200);

    // The base moves again and conflicts again: the one round is spent.
    commitOnBase(repo, "f.txt", "base edits f again\n");
    const head = gitSync(worktree, "rev-parse", "HEAD").trim();
    await poll(srv);
    const second = await waitFor(async () => {
      const runs = await baseRuns(srv, taskId);
      return runs.length === 2 && ended(runs[1]!) ? runs[1] : undefined;
    }, "the capped round ended");
    expect(second).toMatchObject({ state: "failed", sessionId: null });
    expect(second!.outcome).toMatch(/^conflicts after 1 round: the update was aborted/);
    expect(gitSync(worktree, "rev-parse", "HEAD").trim()).toBe(head);
    expect(gitSync(worktree, "status", "--porcelain")).toBe("");
    const inbox = (await srv.api("GET", "/inbox")).body as { taskId: string; title: string }[];
    expect(inbox.filter((i) => i.taskId === taskId && i.title.includes("automatic round"))).toEqual([
      expect.objectContaining({ title: "Base task: conflicts with the base remain after 1 automatic round; over to you" }),
    ]);
    const after = ((await srv.api("GET", `/sessions/${sessionId}/messages`)).body as Message[]).filter((m) => m.role === "user");
    expect(after).toHaveLength(prompts.length);
  });
});
