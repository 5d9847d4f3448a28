import { beforeAll, describe, expect, it } from "vitest";
import { makeRepo } from "../fixture/git.js";
import { canUnshare, sql } from "./isolated.js";
import { SLOW_BEAT, threeRunners } from "./three-runners.js";
import { cleanupsAfterEach } from "../fixture/cleanups.js";

describe("capacity across runners (PostgreSQL)", { timeout: 300_000 }, () => {
  const cleanups = cleanupsAfterEach();
  beforeAll(() => expect(canUnshare(), "unshare --mount with a tmpfs must work on this machine").toBe(true));

  it("RUN-10: with GROVE_RUNNER_MAX_AGENTS=2 on each of three runners, 6 parallel launches through A run 2/2/2; a 7th is refused no_runner_available (capacity) with nothing written", async () => {
    const { databaseUrl, a, b, c } = await threeRunners(cleanups, { env: { GROVE_RUNNER_HEARTBEAT_MS: SLOW_BEAT } });
    // One repository held by each runner (a local path lives on the runner that registered it).
    const repoOf: Record<string, string> = {};
    for (const r of [a, b, c]) {
      const reg = await r.api("POST", "/repositories", { path: (await makeRepo({ name: `repo-${r.id}` })).path });
      expect(reg.status).toBe(201);
      repoOf[r.id] = reg.body.id as string;
    }
    const newTask = async (title: string, runnerId: string) => {
      const t = await a.api("POST", "/tasks", { title, repositories: [{ repositoryId: repoOf[runnerId] }] });
      expect(t.status).toBe(201);
      return t.body.id as string;
    };
    const tasks: string[] = [];
    for (const r of [a, b, c]) for (const n of [1, 2]) tasks.push(await newTask(`${r.id} ${n}`, r.id));
    const seventh = await newTask("one too many", "runner_a");

    const launched = await Promise.all(tasks.map((id) => a.api("POST", `/tasks/${id}/sessions`, {})));
    expect(launched.map((r) => r.status)).toEqual([201, 201, 201, 201, 201, 201]);
    const placed: Record<string, number> = {};
    for (const id of tasks) {
      const t = (await b.api("GET", `/tasks/${id}`)).body as { runnerId: string };
      placed[t.runnerId] = (placed[t.runnerId] ?? 0) + 1;
    }
    expect(placed).toEqual({ runner_a: 2, runner_b: 2, runner_c: 2 });
    const agents = await sql<{ runner_id: string; n: string }>(
      databaseUrl,
      "SELECT runner_id, count(*) AS n FROM agent_processes GROUP BY runner_id ORDER BY runner_id",
    );
    expect(agents.map((r) => [r.runner_id, Number(r.n)])).toEqual([
      ["runner_a", 2],
      ["runner_b", 2],
      ["runner_c", 2],
    ]);

    // The 7th, through A and through B (forwarded to A): refused with a clear code, nothing written.
    for (const via of [a, b]) {
      const full = await via.api("POST", `/tasks/${seventh}/sessions`, {});
      expect(full.status).toBe(409);
      expect(full.body.error).toMatchObject({ code: "no_runner_available", details: { reason: "capacity", maxAgents: 2, liveAgents: 2 } });
    }
    expect((await a.api("GET", `/tasks/${seventh}/sessions`)).body).toEqual([]);
    expect((await a.api("GET", `/tasks/${seventh}/environment`)).status).toBe(404);
    // A task every runner could hold but all are full gets the same answer, naming each runner.
    const anywhere = await a.api("POST", "/tasks", { title: "anywhere", repositories: [{ repositoryId: repoOf.runner_c! }] });
    const none = await c.api("POST", `/tasks/${anywhere.body.id}/sessions`, {});
    expect(none.status).toBe(409);
    expect(none.body.error.code).toBe("no_runner_available");
  });
});
