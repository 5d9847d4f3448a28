import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeRepo, type TestRepo } from "../fixture/git.js";
import { startTestServer, waitForSession, type TestServer } from "../fixture/server.js";
import { runGrove } from "../cli/run-cli.js";

// USE-1/USE-2 with the bundled CLI: `grove usage` prints the server's roll-up, `grove task budget` sets budgets.
describe("USE-1 USE-2 grove usage, grove task budget", () => {
  let srv: TestServer;
  let repo: TestRepo;
  let taskId: string;
  const grove = (...args: string[]) => runGrove([...args, "--server", srv.url]);

  beforeAll(async () => {
    srv = await startTestServer("sqlite");
    repo = await makeRepo({ name: "metered" });
    expect((await grove("repo", "add", repo.path)).code).toBe(0);
    taskId = (await grove("task", "create", "--title", "Metered", "--repo", "metered", "--quiet")).stdout.trim();
    const s = await srv.api("POST", `/tasks/${taskId}/sessions`, { prompt: "usage 1200 34 0.5" });
    await waitForSession(srv.api, s.body.id, ["waiting_for_input"]);
  });
  afterAll(async () => {
    await srv?.close();
    await repo?.cleanup();
  });

  it("USE-1 grove usage lists per task and per agent with a total; --json is the API's rows; a bad --by is a usage error", async () => {
    const ls = await grove("usage");
    expect(ls.code).toBe(0);
    const lines = ls.stdout.trim().split("\n");
    expect(lines[0]).toMatch(/^TASK\s+TOKENS IN\s+TOKENS OUT\s+COST$/);
    expect(lines[1]).toMatch(new RegExp(`^Metered \\(${taskId}\\)\\s+1200\\s+34\\s+0\\.5000 USD$`));
    expect(lines[2]).toMatch(/^total\s+1200\s+34\s+0\.5000 USD$/);
    const rows = JSON.parse((await grove("usage", "--by", "agent", "--json")).stdout) as { key: string; tokensIn: number }[];
    expect(rows).toEqual([expect.objectContaining({ key: "scripted", tokensIn: 1200, tokensOut: 34, cost: 0.5 })]);
    const day = new Date().toISOString().slice(0, 10);
    expect((await grove("usage", "--by", "day", "--from", day, "--to", day)).stdout).toContain(day);
    const bad = await grove("usage", "--by", "week");
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/--by must be/);
  });

  it("USE-2 grove task budget sets cost and token limits, removes them, and continues once", async () => {
    const set = await grove("task", "budget", taskId, "5usd", "200000tokens");
    expect(set.code).toBe(0);
    expect(set.stdout).toBe(`task ${taskId} budget: 5 USD, 200000 tokens\n`);
    expect((await srv.api("GET", `/tasks/${taskId}`)).body.budget).toEqual({ cost: 5, tokens: 200000 });
    expect((await grove("task", "budget", taskId, "--continue-once")).stdout).toBe(
      `task ${taskId}: one more turn may run past the budget or daily cap that stops it\n`,
    );
    expect((await grove("task", "budget", taskId, "none")).stdout).toBe(`task ${taskId}: no budget\n`);
    expect((await srv.api("GET", `/tasks/${taskId}`)).body.budget).toBeUndefined();
    const bad = await grove("task", "budget", taskId, "5eur");
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/an amount is <number>\[usd\|tokens\]/);
  });

  it("USE-2 grove usage budget shows and sets the daily cap over every runner, none turns it off, --reset goes back to GROVE_DAILY_BUDGET", async () => {
    const day = new Date().toISOString().slice(0, 10);
    expect((await grove("usage", "budget")).stdout).toBe(`daily cap: none; spent ${day}: 0.5000 USD, 1234 tokens\n`);
    expect((await grove("usage", "budget", "3usd", "100000tokens")).stdout).toBe(
      `daily cap: 3 USD, 100000 tokens (set here); spent ${day}: 0.5000 USD, 1234 tokens\n`,
    );
    expect((await srv.api("GET", "/usage/daily-budget")).body).toMatchObject({ budget: { cost: 3, tokens: 100000 }, source: "person" });
    expect((await grove("usage", "budget", "none")).stdout).toBe(`daily cap: none (set here); spent ${day}: 0.5000 USD, 1234 tokens\n`);
    expect((await grove("usage", "budget", "--reset")).stdout).toBe(`daily cap: none; spent ${day}: 0.5000 USD, 1234 tokens\n`);
    const bad = await grove("usage", "budget", "--reset", "3usd");
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/--reset takes no amount/);
  });
});
