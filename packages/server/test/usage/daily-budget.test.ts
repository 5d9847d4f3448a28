import { describe, expect, it } from "vitest";
import { DATABASES } from "../fixture/db.js";
import { repoAndTask } from "../fixture/scenario.js";
import { apiClient, serverPerTest, waitFor, waitForSession } from "../fixture/server.js";

type Item = { id: string; kind: string; state: string; title: string };

// USE-2: the person raises (or turns off, or resets) the global daily cap through the API, in
// force at once — no restart — and the cap's open inbox items are settled. Only the person sets it.
describe.each(DATABASES)("USE-2 the daily cap set by the person (%s)", (kind) => {
  const perTest = serverPerTest(kind);

  it("USE-2 PUT /usage/daily-budget raises the cap without a restart, {} turns it off, DELETE goes back to GROVE_DAILY_BUDGET; only the person; bad input changes nothing", async () => {
    const srv = await perTest.start({ GROVE_DAILY_BUDGET: "1usd" });
    const day = new Date().toISOString().slice(0, 10);
    expect((await srv.api("GET", "/usage/daily-budget")).body).toEqual({
      budget: { cost: 1 },
      source: "config",
      setAt: null,
      day,
      used: { tokens: 0, cost: 0 },
    });

    // Spend the cap: the next prompt of any task is refused, and a 100 % item is open.
    const { task } = await repoAndTask(srv, { title: "Daily" });
    const s = await srv.api("POST", `/tasks/${task.id}/sessions`, { prompt: "usage 1 1 1" });
    await waitForSession(srv.api, s.body.id, ["waiting_for_input"]);
    const refused = await srv.api("POST", `/sessions/${s.body.id}/prompt`, { prompt: "say more" });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: "budget_exceeded", details: { scope: "daily", limit: { cost: 1 } } });
    expect(refused.body.error.message).toMatch(/PUT \/usage\/daily-budget/);
    const dailyItems = async () => ((await srv.api("GET", "/inbox")).body as Item[]).filter((i) => i.kind === "budget" && i.state === "open");
    await waitFor(async () => ((await dailyItems()).some((i) => /the daily cap is spent/.test(i.title)) ? true : undefined), "the 100 % item");

    // Not the person: refused. Bad input: 400. Either way the cap is unchanged.
    const stranger = apiClient(srv.url, "");
    for (const r of [await stranger("PUT", "/usage/daily-budget", { cost: 100 }), await stranger("DELETE", "/usage/daily-budget")]) {
      expect(r.status).toBe(403);
      expect(r.body.error.code).toBe("person_required");
    }
    for (const body of [{ cost: -1 }, { tokens: 1.5 }, { cost: 5, extra: true }]) {
      const bad = await srv.api("PUT", "/usage/daily-budget", body);
      expect(bad.status, JSON.stringify(body)).toBe(400);
      expect(bad.body.error.code).toBe("invalid_request");
    }
    expect((await srv.api("GET", "/usage/daily-budget")).body).toMatchObject({ budget: { cost: 1 }, source: "config" });

    // The person raises it: in force at once, the item settled, the same server lets work go on.
    const raised = await srv.api("PUT", "/usage/daily-budget", { cost: 5, tokens: 1_000_000 });
    expect(raised.status).toBe(200);
    expect(raised.body).toMatchObject({ budget: { cost: 5, tokens: 1_000_000 }, source: "person", day, used: { cost: 1, tokens: 2 } });
    expect(typeof raised.body.setAt).toBe("string");
    expect(await dailyItems()).toEqual([]);
    expect((await srv.api("POST", `/sessions/${s.body.id}/prompt`, { prompt: "usage 1 1 1.5" })).status).toBe(202);
    await waitFor(async () => ((await srv.api("GET", `/sessions/${s.body.id}`)).body.usage?.cost === 1.5 ? true : undefined), "the turn under the raised cap");
    await waitForSession(srv.api, s.body.id, ["waiting_for_input"]);

    // {} turns the cap off; DELETE brings GROVE_DAILY_BUDGET back (1.5 spent > 1: refused again).
    expect((await srv.api("PUT", "/usage/daily-budget", {})).body).toMatchObject({ budget: {}, source: "person" });
    expect((await srv.api("POST", `/sessions/${s.body.id}/prompt`, { prompt: "say free" })).status).toBe(202);
    await waitForSession(srv.api, s.body.id, ["waiting_for_input"]);
    expect((await srv.api("DELETE", "/usage/daily-budget")).body).toMatchObject({ budget: { cost: 1 }, source: "config", setAt: null });
    const again = await srv.api("POST", `/sessions/${s.body.id}/prompt`, { prompt: "say more" });
    expect(again.status).toBe(409);
    expect(again.body.error.details).toMatchObject({ scope: "daily", limit: { cost: 1 } });
  });
});
