import { describe, expect, it } from "vitest";
import { ONE_DATABASE } from "../fixture/db.js";
import { startTestServer, waitFor, waitForSession, type TestServer } from "../fixture/server.js";
import { addRemote, launch } from "../remote/helpers.js";
import { type Run, fakeGithubRemote, runsOf } from "./helpers.js";
import { cleanupsAfterEach } from "../fixture/cleanups.js";

type Message = { role: string; text: string };

/** The background pull-request refresh off: the test polls when it means to. */
const ENV = { GROVE_PR_REFRESH_MS: "0", GROVE_REFRESH_TIMEOUT_MS: "30000" };

const trigger = (extra = "") => `steps:\n  - id: review\ntriggers:\n  reviewComments:\n    pollSeconds: 3600\n${extra}`;

const userPrompts = async (srv: TestServer, sessionId: string) =>
  ((await srv.api("GET", `/sessions/${sessionId}/messages`)).body as Message[]).filter((m) => m.role === "user").map((m) => m.text);
const commentRuns = async (srv: TestServer, taskId: string) => (await runsOf(srv, taskId)).filter((r) => r.cause === "review_comment");
const settled = (runs: Run[], n: number) => runs.length === n && runs.every((r) => r.state === "succeeded");
const poll = (srv: TestServer) => srv.server.orchestrator.workflows.engine.reviewComments.poll(true);

describe.each(ONE_DATABASE)("WF-2.19 new review comments on the pull request → the agent (%s)", { timeout: 240_000 }, (kind) => {
  const cleanups = cleanupsAfterEach();

  /** A server, the fake GitHub and a task whose session pushed a commit and opened a pull request. */
  async function withPullRequest(workflow: string) {
    const remote = await fakeGithubRemote(cleanups);
    const srv = await startTestServer(kind, undefined, ENV);
    cleanups.push(() => srv.close());
    const repo = await addRemote(srv, { url: remote.web, provider: "github", credential: { token: remote.token }, apiUrl: remote.fake.apiUrl });
    expect((await srv.api("PUT", "/workflows/comments", workflow)).status).toBe(200);
    const { task, session } = await launch(srv, [{ repositoryId: repo.id }], "Comment task");
    expect((await srv.api("POST", `/sessions/${session.id}/prompt`, { prompt: "write f.txt F\ncommit add f" })).status).toBe(202);
    await waitForSession(srv.api, session.id, ["waiting_for_input"]);
    expect((await srv.api("POST", `/tasks/${task.id}/pull-requests`, { title: "Add f" })).status).toBe(201);
    return { srv, fake: remote.fake, task, session };
  }

  it("WF-2.19 each new comment (file, line, body) reaches the working session once, in order; a second poll and a restart send nothing again", async () => {
    const { srv: first, fake, task, session } = await withPullRequest(trigger());
    fake.comments = [
      { id: 101, path: "f.txt", line: 1, body: "rename this\nfile", resolved: false },
      { id: 102, path: "f.txt", line: 2, body: "and add a test", resolved: false },
    ];
    await poll(first);
    await waitFor(async () => (settled(await commentRuns(first, task.id), 2) ? true : undefined), "both comments sent");
    const prompts = await userPrompts(first, session.id);
    expect(prompts.slice(-2)).toEqual([
      "Review comment on f.txt line 1 by reviewer: rename this file",
      "Review comment on f.txt line 2 by reviewer: and add a test",
    ]);
    expect((await commentRuns(first, task.id)).map((r) => r.sessionId)).toEqual([session.id, session.id]);

    // The same comments on the next poll: nothing new. A third comment: one more prompt.
    await poll(first);
    fake.comments.push({ id: 103, path: "f.txt", line: 3, body: "typo", resolved: false });
    await poll(first);
    await waitFor(async () => (settled(await commentRuns(first, task.id), 3) ? true : undefined), "the third comment sent");
    expect((await userPrompts(first, session.id)).filter((p) => p.startsWith("Review comment"))).toHaveLength(3);

    // A restart polls at once: every comment was sent already.
    await first.stop();
    const srv = await startTestServer(kind, { home: first.home, databaseUrl: first.databaseUrl }, ENV);
    cleanups.push(() => srv.stop());
    await poll(srv);
    await srv.server.orchestrator.workflows.engine.flush();
    expect(await commentRuns(srv, task.id)).toHaveLength(3);
    expect((await userPrompts(srv, session.id)).filter((p) => p.startsWith("Review comment"))).toHaveLength(3);
  });

  it("WF-2.19 with `agent`, each comment starts a new session with the workflow's prompt; a bad trigger is 400 with its line", async () => {
    const { srv, fake, task, session } = await withPullRequest(trigger('    agent: scripted\n    prompt: "Fix {{path}}:{{line}} of {{title}}: {{comment}}"\n'));
    const bad = await srv.api("PUT", "/workflows/comments", trigger("    agent: nobody\n"));
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: "invalid_workflow", details: { line: 6, path: "triggers.reviewComments.agent" } });
    const field = await srv.api("PUT", "/workflows/comments", trigger('    prompt: "{{nope}}"\n'));
    expect(field.body.error).toMatchObject({ code: "invalid_workflow", details: { line: 6 } });

    fake.comments = [{ id: 7, path: "f.txt", line: 1, body: "say hello", resolved: false }];
    await poll(srv);
    const [run] = await waitFor(async () => {
      const runs = await commentRuns(srv, task.id);
      return settled(runs, 1) ? runs : undefined;
    }, "the comment's session ran");
    expect(run!.sessionId).not.toBe(session.id);
    expect(await userPrompts(srv, run!.sessionId!)).toEqual(["Fix f.txt:1 of Comment task: say hello"]);
    expect((await userPrompts(srv, session.id)).some((p) => p.includes("say hello"))).toBe(false);
  });
});
