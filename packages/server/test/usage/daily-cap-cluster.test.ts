import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { makeRepo } from "../fixture/git.js";
import { openEvents, waitFor, waitForSession, type TestServer } from "../fixture/server.js";
import { inProcessRunner, sharedDatabase } from "../cluster/helpers.js";
import { cleanupsAfterEach } from "../fixture/cleanups.js";

// USE-2 across runners (PostgreSQL): the global daily cap is measured in the shared database, so
// spend through one runner stops new prompts on every runner, and a turn in flight elsewhere is
// cancelled at its own next report: no overshoot beyond the turns in flight.
describe("USE-2 the daily cap across two runners (PostgreSQL)", { timeout: 240_000 }, () => {
  const cleanups = cleanupsAfterEach();

  async function taskOn(r: TestServer, name: string): Promise<string> {
    const repo = await makeRepo({ name });
    cleanups.push(() => repo.cleanup());
    const reg = await r.api("POST", "/repositories", { path: repo.path });
    expect(reg.status).toBe(201);
    const t = await r.api("POST", "/tasks", { title: name, repositories: [{ repositoryId: reg.body.id }] });
    expect(t.status).toBe(201);
    return t.body.id as string;
  }

  it("USE-2 spend on runner A and runner B adds up to one cap; the in-flight turn on B is cancelled at its next report; new prompts are refused on both until the person raises the cap through either", async () => {
    const { databaseUrl } = await sharedDatabase(cleanups);
    const env = { GROVE_DAILY_BUDGET: "1usd" };
    const a = await inProcessRunner(cleanups, databaseUrl, "runner_a", env);
    const b = await inProcessRunner(cleanups, databaseUrl, "runner_b", env);
    const eventsB = await openEvents(b.url);
    cleanups.push(async () => eventsB.close());
    const ta = await taskOn(a, "on-a");
    const tb = await taskOn(b, "on-b");

    // A spends 0.6; B spends 0.3 and then waits, mid-turn, until the test lets it go on.
    const sa = await a.api("POST", `/tasks/${ta}/sessions`, { prompt: "usage 10 1 0.6" });
    await waitForSession(a.api, sa.body.id, ["waiting_for_input"]);
    const sb = await b.api("POST", `/tasks/${tb}/sessions`, {
      prompt: "usage 10 1 0.3\nrun while [ ! -f go-on ]; do sleep 0.05; done\nusage 10 1 0.35\nsleep 60000\nsay never",
    });
    expect(sb.status).toBe(201);
    // The agent runs confined: the file it waits for is in its worktree (its cwd).
    const gate = join((await b.api("GET", `/tasks/${tb}/environment`)).body.repositories[0].worktreePath as string, "go-on");
    await waitFor(async () => ((await b.api("GET", `/sessions/${sb.body.id}`)).body.usage?.cost === 0.3 ? true : undefined), "B's first report");

    // A's next turn passes the cap (0.6 + 0.3 + 0.3 = 1.2): runner A cancels it.
    expect((await a.api("POST", `/sessions/${sa.body.id}/prompt`, { prompt: "usage 10 1 0.9\nsleep 60000\nsay never" })).status).toBe(202);
    const cancelledA = await waitForSession(a.api, sa.body.id, ["waiting_for_input"], 10_000);
    expect(cancelledA.lastTurn.outcome).toBe("cancelled");

    // New prompts are refused through either runner, for either task.
    for (const [via, taskId] of [
      [a, tb],
      [b, ta],
      [b, tb],
    ] as const) {
      const r = await via.api("POST", `/tasks/${taskId}/sessions`, { prompt: "say hi" });
      expect(r.status).toBe(409);
      expect(r.body.error).toMatchObject({ code: "budget_exceeded", details: { scope: "daily", limit: { cost: 1 } } });
    }
    expect((await a.api("GET", `/sessions/${sb.body.id}`)).body.state).toBe("running");

    // B's turn, in flight all along, reports once more: runner B cancels it within 2 s.
    writeFileSync(gate, "");
    await waitFor(
      () => eventsB.frames.some((f) => f.type === "usage.updated" && f.data.sessionId === sb.body.id && f.data.usage.cost === 0.35),
      "B's second report",
    );
    await waitFor(
      () =>
        eventsB.frames.some((f) => f.type === "session.state_changed" && f.data.session.id === sb.body.id && f.data.session.lastTurn?.outcome === "cancelled"),
      "B's turn cancelled within 2 s",
      2000,
    );
    // The overshoot is what the two in-flight turns reported: 0.6 + 0.3 (A) + 0.35 (B) = 1.25.
    const day = new Date().toISOString().slice(0, 10);
    const rows = (await b.api("GET", `/usage?groupBy=day&from=${day}&to=${day}`)).body.rows;
    expect(rows).toEqual([expect.objectContaining({ key: day, cost: 1.25 })]);
    const perRunner = (await a.api("GET", "/usage?groupBy=runner")).body.rows as { key: string; cost: number }[];
    expect(perRunner.map((r) => [r.key, r.cost])).toEqual([
      ["runner_a", 0.9],
      ["runner_b", 0.35],
    ]);
    expect(existsSync(gate)).toBe(true);

    // The person raises the cap through runner A: runner B lets new work start at once (no restart).
    expect((await a.api("PUT", "/usage/daily-budget", { cost: 10 })).status).toBe(200);
    expect((await b.api("GET", "/usage/daily-budget")).body).toMatchObject({ budget: { cost: 10 }, source: "person" });
    expect((await b.api("POST", `/tasks/${ta}/sessions`, { prompt: "say hi" })).status).toBe(201);
  });
});
