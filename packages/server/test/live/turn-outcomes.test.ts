import { describe, expect, it } from "vitest";
import { ONE_DATABASE } from "../fixture/db.js";
import { repoAndTask } from "../fixture/scenario.js";
import { serverPerTest, waitFor, waitForSession } from "../fixture/server.js";

// LIVE-2: every turn records its outcome with the agent's reason; a failed turn never looks
// like a finished one (session, task state, board summary).
describe.each(ONE_DATABASE)("LIVE-2 turn outcomes (%s)", (kind) => {
  const perTest = serverPerTest(kind);

  async function summaryOf(srv: Awaited<ReturnType<typeof perTest.start>>, taskId: string) {
    const list = (await srv.api("GET", "/tasks?view=summary")).body as { id: string; state: string; agent: Record<string, unknown> }[];
    return list.find((t) => t.id === taskId)!;
  }

  it("LIVE-2 a refused turn: lastTurn refused with the agent's reason, lastError set, task not moved to Review; the next good turn clears it", async () => {
    const srv = await perTest.start();
    const { repo, task } = await repoAndTask(srv);
    perTest.track(repo);
    const s = await srv.api("POST", `/tasks/${task.id}/sessions`, { prompt: "say looking\nfail cannot do that" });
    expect(s.status).toBe(201);
    const after = await waitForSession(srv.api, s.body.id, ["waiting_for_input", "failed"]);
    expect(after.state).toBe("waiting_for_input");
    expect(after.lastTurn).toMatchObject({ outcome: "refused", stopReason: "refusal" });
    expect(after.lastTurn.reason).toContain("cannot do that");
    expect(after.lastError).toMatchObject({ code: "turn_refused" });
    expect(after.lastError.message).toContain("cannot do that");
    // Not in Review: the task's only session failed its turn.
    await waitFor(async () => (await srv.api("GET", `/tasks/${task.id}`)).body.state === "failed", "the task to be failed");
    const summary = await summaryOf(srv, task.id);
    expect(summary.agent).toMatchObject({ state: "failed", sessionId: s.body.id, outcome: "refused" });
    expect(String(summary.agent.reason)).toContain("cannot do that");

    // The agent is still there: a good turn completes, clears the error and moves to Review.
    expect((await srv.api("POST", `/sessions/${s.body.id}/prompt`, { prompt: "say fine now" })).status).toBe(202);
    await waitFor(async () => (await srv.api("GET", `/sessions/${s.body.id}`)).body.lastTurn?.outcome === "completed", "a completed turn");
    const ok = (await srv.api("GET", `/sessions/${s.body.id}`)).body;
    expect(ok).toMatchObject({ state: "waiting_for_input", lastError: null });
    expect(ok.lastTurn.reason).toBeUndefined();
    await waitFor(async () => (await srv.api("GET", `/tasks/${task.id}`)).body.state === "review", "the task in review");
    expect((await summaryOf(srv, task.id)).agent).toEqual({ state: "waiting", sessionId: s.body.id });
  });

  it("LIVE-2 a cancelled turn is cancelled (not a failure); an agent crash is a failed turn with the exit", async () => {
    const srv = await perTest.start();
    const { repo, task } = await repoAndTask(srv);
    perTest.track(repo);
    const s = await srv.api("POST", `/tasks/${task.id}/sessions`, { prompt: "say working\nsleep 30000" });
    await waitFor(
      async () => ((await srv.api("GET", `/sessions/${s.body.id}/messages`)).body as { text: string }[]).some((m) => m.text === "working"),
      "the turn to run",
    );
    expect((await srv.api("POST", `/sessions/${s.body.id}/cancel`)).status).toBe(202);
    await waitFor(async () => (await srv.api("GET", `/sessions/${s.body.id}`)).body.lastTurn?.outcome === "cancelled", "a cancelled turn");
    expect((await srv.api("GET", `/sessions/${s.body.id}`)).body).toMatchObject({ state: "waiting_for_input", lastError: null });
    await waitFor(async () => (await srv.api("GET", `/tasks/${task.id}`)).body.state === "review", "a cancelled turn keeps Review");

    expect((await srv.api("POST", `/sessions/${s.body.id}/prompt`, { prompt: "crash 3" })).status).toBe(202);
    const crashed = await waitForSession(srv.api, s.body.id, ["failed"]);
    expect(crashed.lastTurn).toMatchObject({ outcome: "failed" });
    expect(crashed.lastTurn.reason).toMatch(/code 3/);
    expect(crashed.lastError.code).toBe("agent_crashed");
  });
});
