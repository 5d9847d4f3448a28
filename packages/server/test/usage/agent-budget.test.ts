import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { scriptedAgentCommand } from "../../src/agents/profiles.js";
import { DATABASES, freshDatabase } from "../fixture/db.js";
import { repoAndTask } from "../fixture/scenario.js";
import { apiClient, startTestServer, waitFor, waitForSession, type DbKind, type TestServer } from "../fixture/server.js";

type Item = { id: string; kind: string; state: string; title: string };

/** A server whose agents.json adds `other`, the scripted agent under a second profile name. */
async function serverWithOther(kind: DbKind): Promise<TestServer> {
  const db = await freshDatabase(kind);
  const c = scriptedAgentCommand();
  writeFileSync(join(db.home, "agents.json"), JSON.stringify({ agents: [{ name: "other", command: c.command, args: c.args }] }));
  return startTestServer(kind, db);
}

async function profile(srv: TestServer, name: string) {
  return ((await srv.api("GET", "/agents")).body as { name: string; budget?: unknown }[]).find((p) => p.name === name);
}

// USE-2: a daily cap per agent profile, set by the person, measured over the sessions of that
// profile on the UTC day; reaching it stops that profile's turns only.
describe.each(DATABASES)("USE-2 the daily cap of an agent profile (%s)", (kind) => {
  let srv: TestServer | undefined;
  afterEach(async () => {
    await srv?.close();
    srv = undefined;
  });

  it("USE-2 PUT|DELETE /agents/:name/budget: bad input 400 naming the field, an agent's token 403, an unknown profile 404, none changes anything; GET /agents shows the cap and today's spend", async () => {
    srv = await serverWithOther(kind);
    const day = new Date().toISOString().slice(0, 10);
    expect((await profile(srv, "scripted"))?.budget).toEqual({ budget: {}, setAt: null, day, used: { tokens: 0, cost: 0 } });

    for (const [body, field] of [
      [{ cost: -1 }, "cost"],
      [{ tokens: 1.5 }, "tokens"],
      [{ cost: "5" }, "cost"],
    ] as const) {
      const bad = await srv.api("PUT", "/agents/scripted/budget", body);
      expect(bad.status, JSON.stringify(body)).toBe(400);
      expect(bad.body.error).toMatchObject({ code: "invalid_request", details: { field } });
    }
    const extra = await srv.api("PUT", "/agents/scripted/budget", { cost: 5, extra: true });
    expect(extra.status).toBe(400);
    expect(extra.body.error.code).toBe("invalid_request");
    const unknown = await srv.api("PUT", "/agents/nobody/budget", { cost: 5 });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe("not_found");
    // SBX-5: a process without the person's token (an agent's) sets no cap.
    const agentToken = apiClient(srv.url, { home: "/nonexistent" });
    for (const r of [await agentToken("PUT", "/agents/scripted/budget", { cost: 5 }), await agentToken("DELETE", "/agents/scripted/budget")]) {
      expect(r.status).toBe(403);
      expect(r.body.error.code).toBe("person_required");
    }
    expect((await profile(srv, "scripted"))?.budget).toMatchObject({ budget: {}, setAt: null });

    const set = await srv.api("PUT", "/agents/scripted/budget", { cost: 2, tokens: 1000 });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ name: "scripted", budget: { budget: { cost: 2, tokens: 1000 }, day, used: { tokens: 0, cost: 0 } } });
    expect(typeof set.body.budget.setAt).toBe("string");
    // Today's spend of the profile's sessions shows beside the cap; the other profile has none.
    const { task } = await repoAndTask(srv, { title: "Spend" });
    const s = await srv.api("POST", `/tasks/${task.id}/sessions`, { prompt: "usage 3 4 0.25" });
    await waitForSession(srv.api, s.body.id, ["waiting_for_input"]);
    expect((await profile(srv, "scripted"))?.budget).toMatchObject({ budget: { cost: 2, tokens: 1000 }, used: { tokens: 7, cost: 0.25 } });
    expect((await profile(srv, "other"))?.budget).toMatchObject({ budget: {}, used: { tokens: 0, cost: 0 } });

    const removed = await srv.api("DELETE", "/agents/scripted/budget");
    expect(removed.status).toBe(200);
    expect(removed.body.budget).toMatchObject({ budget: {}, setAt: null, used: { cost: 0.25 } });
    expect((await srv.api("PUT", "/agents/scripted/budget", {})).body.budget).toMatchObject({ budget: {}, setAt: null });
  });

  it("USE-2 past an agent profile's daily cap its running turn is cancelled and its next prompts refused (budget_exceeded naming the agent) until the person continues once or raises it; another profile's turn runs on", async () => {
    srv = await serverWithOther(kind);
    expect((await srv.api("PUT", "/agents/scripted/budget", { cost: 0.5 })).status).toBe(200);

    // A turn of `other` runs, reporting 0.3, and waits, mid-turn, for the test.
    const { task: otherTask, repository } = await repoAndTask(srv, { title: "Other" });
    const o = await srv.api("POST", `/tasks/${otherTask.id}/sessions`, {
      agent: "other",
      prompt: "usage 10 1 0.3\nrun while [ ! -f go-on ]; do sleep 0.05; done\nsay other done",
    });
    expect(o.status, JSON.stringify(o.body)).toBe(201);
    await waitFor(async () => ((await srv!.api("GET", `/sessions/${o.body.id}`)).body.usage?.cost === 0.3 ? true : undefined), "other's report");

    // scripted spends 0.6 of its 0.5: its running turn is cancelled.
    const task = (await srv.api("POST", "/tasks", { title: "Capped agent", repositories: [{ repositoryId: repository.id }] })).body;
    const s = await srv.api("POST", `/tasks/${task.id}/sessions`, { prompt: "usage 10 1 0.6\nsleep 60000\nsay never" });
    expect(s.status).toBe(201);
    const cancelled = await waitForSession(srv.api, s.body.id, ["waiting_for_input"], 10_000);
    expect(cancelled.lastTurn.outcome).toBe("cancelled");

    // Its next prompt, and a new session of the profile, are refused, naming the agent.
    const refused = await srv.api("POST", `/sessions/${s.body.id}/prompt`, { prompt: "say more" });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({
      code: "budget_exceeded",
      details: { scope: "agent", agent: "scripted", limit: { cost: 0.5 }, used: { cost: 0.6 } },
    });
    expect(refused.body.error.message).toMatch(/PUT \/agents\/scripted\/budget/);
    expect((await srv.api("POST", `/tasks/${task.id}/sessions`, { prompt: "say hi" })).body.error?.code).toBe("budget_exceeded");
    const items = async () => ((await srv!.api("GET", "/inbox")).body as Item[]).filter((i) => i.kind === "budget" && i.state === "open");
    await waitFor(async () => ((await items()).some((i) => /agent scripted's daily cap is spent/.test(i.title)) ? true : undefined), "the 100 % item");

    // The other profile's turn was not cancelled, and its sessions take new prompts.
    expect((await srv.api("GET", `/sessions/${o.body.id}`)).body.state).toBe("running");
    const worktree = (await srv.api("GET", `/tasks/${otherTask.id}/environment`)).body.repositories[0].worktreePath as string;
    writeFileSync(join(worktree, "go-on"), "");
    const otherDone = await waitForSession(srv.api, o.body.id, ["waiting_for_input"]);
    expect(otherDone.lastTurn.outcome).not.toBe("cancelled");
    expect((await srv.api("POST", `/sessions/${o.body.id}/prompt`, { prompt: "say again" })).status).toBe(202);
    await waitForSession(srv.api, o.body.id, ["waiting_for_input"]);

    // The person lets one more turn run (the daily cap's continue-once), then raises the cap.
    expect((await srv.api("PUT", `/tasks/${task.id}/budget`, { continueOnce: true })).status).toBe(200);
    expect((await srv.api("POST", `/sessions/${s.body.id}/prompt`, { prompt: "say once" })).status).toBe(202);
    await waitForSession(srv.api, s.body.id, ["waiting_for_input"]);
    expect((await srv.api("POST", `/sessions/${s.body.id}/prompt`, { prompt: "say more" })).status).toBe(409);
    expect((await srv.api("PUT", "/agents/scripted/budget", { cost: 5 })).status).toBe(200);
    expect((await items()).filter((i) => /agent scripted/.test(i.title))).toEqual([]);
    expect((await srv.api("POST", `/sessions/${s.body.id}/prompt`, { prompt: "say raised" })).status).toBe(202);
    await waitForSession(srv.api, s.body.id, ["waiting_for_input"]);
  });
});
