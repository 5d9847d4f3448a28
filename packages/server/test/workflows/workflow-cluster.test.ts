import { describe, expect, it } from "vitest";
import { inProcessRunner, sharedDatabase } from "../cluster/helpers.js";
import { makeRepo } from "../fixture/git.js";
import { waitForSession, type TestServer } from "../fixture/server.js";
import { applyWorkflow, waitForRun } from "./helpers.js";
import { cleanupsAfterEach } from "../fixture/cleanups.js";

const FINDING = 'mcp comment_create {"path":"src/a.txt","line":2,"body":"Name this better"}';

/** Review starts a reviewer; its end moves the card to In Progress, whose entry sends the comments to the working session. */
const loop = (repositoryId: string) => `repositoryId: ${repositoryId}
steps:
  - id: review
    onEnter:
      - action: start_session
        agent: scripted
        prompt: ${JSON.stringify(FINDING)}
    on:
      completed: in_progress
  - id: in_progress
    onEnter:
      - action: send_comments
        prompt: "say fixed {{title}}"
`;

const engineOf = (s: TestServer) => s.server.orchestrator.workflows.engine;
const storeOf = (s: TestServer) => s.server.deps.store;

/**
 * WF-2 across two runners on one PostgreSQL database: both engines drain the shared queue of
 * pending runs all along, so every step action is claimed by whichever gets there first; each
 * still runs exactly once, and the session actions act on the runner that holds the task's files.
 */
describe("WF-2 step actions with two runners (PostgreSQL)", { timeout: 240_000 }, () => {
  const cleanups = cleanupsAfterEach();

  it("WF-2 a task entering Review while both engines are live: one reviewer session, one move, one prompt of the comments, each run claimed once, all on the task's runner", async () => {
    const { databaseUrl } = await sharedDatabase(cleanups);
    const a = await inProcessRunner(cleanups, databaseUrl, "runner-a");
    const b = await inProcessRunner(cleanups, databaseUrl, "runner-b");
    const repo = await makeRepo({ name: "wf-two", files: { "src/a.txt": "one\ntwo\n" } });
    cleanups.push(() => repo.cleanup());
    // A local checkout is held by the runner that registered it: the task's files live on A.
    const repositoryId = (await a.api("POST", "/repositories", { path: repo.path })).body.id as string;
    const task = (await a.api("POST", "/tasks", { title: "Widget", repositories: [{ repositoryId }] })).body as { id: string };
    await applyWorkflow(a, "reviewer", loop(repositoryId));
    const work = await a.api("POST", `/tasks/${task.id}/sessions`, { prompt: "say working" });
    expect(work.status).toBe(201);
    await waitForSession(a.api, work.body.id, ["waiting_for_input"]);
    expect((await b.api("GET", `/tasks/${task.id}`)).body).toMatchObject({ runnerId: "runner-a", state: "todo" });

    // Runner B's engine drains the shared queue every few milliseconds (as a busy runner's events would);
    // A's drains on its own events and on the runs B relays.
    const kicker = setInterval(() => engineOf(b).kick(), 5);
    cleanups.push(async () => clearInterval(kicker));

    // The person moves the card through runner B (the one without the task's files).
    expect((await b.api("PATCH", `/tasks/${task.id}`, { state: "review" })).status).toBe(200);
    await waitForRun(a, task.id, "the comments sent", (r) => r.action === "send_comments" && r.state !== "pending" && r.state !== "running", 60_000).catch(
      async (e: Error) => {
        const runs = await storeOf(a).workflows.listRuns(task.id);
        throw new Error(`${e.message}: ${JSON.stringify(runs.map((r) => [r.step, r.action.action, r.state, r.runnerId, r.attempts, r.outcome]))}`);
      },
    );
    const sent = await waitForSession(a.api, work.body.id, ["waiting_for_input"]);
    expect(sent.lastTurn?.outcome).toBe("completed");
    // A few more rounds of both engines: nothing more is claimed or started.
    await new Promise((r) => setTimeout(r, 500));
    clearInterval(kicker);
    await Promise.all([engineOf(a).flush(), engineOf(b).flush()]);

    const runs = await storeOf(a).workflows.listRuns(task.id);
    expect(
      runs.map((r) => [r.step, r.action.action, r.cause, r.state, r.attempts]),
      JSON.stringify(runs.map((r) => [r.action.action, r.runnerId, r.outcome])),
    ).toEqual([
      ["review", "start_session", "enter", "succeeded", 1],
      ["review", "move", "turn_completed", "succeeded", 1],
      ["in_progress", "send_comments", "enter", "succeeded", 1],
    ]);
    // The move went to whichever engine claimed it first; the session actions to A, where the task's files are.
    const [start, moved, send] = runs;
    expect(["runner-a", "runner-b"]).toContain(moved!.runnerId);
    expect([start!.runnerId, send!.runnerId]).toEqual(["runner-a", "runner-a"]);
    expect(send!.sessionId).toBe(work.body.id);

    // One reviewer session, besides the person's, and both run on A, where the task's files are.
    const sessions = (await b.api("GET", `/tasks/${task.id}/sessions`)).body as { id: string }[];
    expect(sessions.map((s) => s.id).sort()).toEqual([work.body.id, start!.sessionId].sort());
    expect((await b.api("GET", `/tasks/${task.id}`)).body).toMatchObject({ runnerId: "runner-a", state: "in_progress" });
    const envOf = async (id: string) => (await storeOf(b).getSession(id))?.taskEnvironmentId;
    expect(await envOf(start!.sessionId!)).toBe(await envOf(work.body.id));

    // One prompt of the comments reached the working session, answered once.
    const msgs = (await b.api("GET", `/sessions/${work.body.id}/messages`)).body as { role: string; text: string }[];
    expect(msgs.filter((m) => m.role === "user" && m.text.includes("Name this better"))).toHaveLength(1);
    expect(msgs.filter((m) => m.role === "agent" && m.text === "fixed Widget")).toHaveLength(1);
    expect(((await b.api("GET", `/tasks/${task.id}/comments`)).body as { state: string }[]).map((c) => c.state)).toEqual(["sent"]);
    // The task entered each step once.
    expect(await storeOf(b).workflows.latestEntry(task.id)).toMatchObject({ step: "in_progress" });
  });
});
