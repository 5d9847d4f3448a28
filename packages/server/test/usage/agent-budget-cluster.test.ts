import { describe, expect, it } from "vitest";
import { makeRepo } from "../fixture/git.js";
import { waitForSession } from "../fixture/server.js";
import { inProcessRunner, sharedDatabase } from "../cluster/helpers.js";
import { cleanupsAfterEach } from "../fixture/cleanups.js";

// USE-2 across runners (PostgreSQL): an agent profile's daily cap lives in the shared database and
// is measured over every runner's ledger, so a cap set through runner A holds on runner B at once.
describe("USE-2 an agent profile's daily cap across two runners (PostgreSQL)", { timeout: 240_000 }, () => {
  const cleanups = cleanupsAfterEach();

  it("USE-2 a cap set through runner A cancels the turn of that agent on runner B and refuses its next prompt there; A sees B's spend", async () => {
    const { databaseUrl } = await sharedDatabase(cleanups);
    const a = await inProcessRunner(cleanups, databaseUrl, "runner_a");
    const b = await inProcessRunner(cleanups, databaseUrl, "runner_b");
    const repo = await makeRepo({ name: "on-b" });
    cleanups.push(() => repo.cleanup());
    const reg = await b.api("POST", "/repositories", { path: repo.path });
    expect(reg.status).toBe(201);
    const t = await b.api("POST", "/tasks", { title: "on-b", repositories: [{ repositoryId: reg.body.id }] });
    expect(t.status).toBe(201);

    // Both runners are up before the cap exists: B takes it from the database, no restart.
    expect((await a.api("PUT", "/agents/scripted/budget", { cost: 0.5 })).status).toBe(200);
    const s = await b.api("POST", `/tasks/${t.body.id}/sessions`, { prompt: "usage 10 1 0.6\nsleep 60000\nsay never" });
    expect(s.status).toBe(201);
    const cancelled = await waitForSession(b.api, s.body.id, ["waiting_for_input"], 10_000);
    expect(cancelled.lastTurn.outcome).toBe("cancelled");

    const refused = await b.api("POST", `/sessions/${s.body.id}/prompt`, { prompt: "say more" });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: "budget_exceeded", details: { scope: "agent", agent: "scripted", limit: { cost: 0.5 } } });
    const onA = ((await a.api("GET", "/agents")).body as { name: string; budget?: { used: { cost: number } } }[]).find((p) => p.name === "scripted");
    expect(onA?.budget?.used.cost).toBe(0.6);
  });
});
