import { beforeAll, describe, expect, it } from "vitest";
import { makeRepo } from "../fixture/git.js";
import { waitFor } from "../fixture/server.js";
import { canUnshare, sql } from "./isolated.js";
import { SLOW_BEAT, threeRunners } from "./three-runners.js";
import { cleanupsAfterEach } from "../fixture/cleanups.js";

describe("placement by load (PostgreSQL)", { timeout: 300_000 }, () => {
  const cleanups = cleanupsAfterEach();
  beforeAll(() => expect(canUnshare(), "unshare --mount with a tmpfs must work on this machine").toBe(true));

  it("RUN-21: every runner fits the task, A and C already run an agent (1 of 2) and B none: a launch through A, and later one through C, goes to B", async () => {
    const { databaseUrl, a, b, c } = await threeRunners(cleanups, { env: { GROVE_RUNNER_HEARTBEAT_MS: SLOW_BEAT } });
    const repo = await makeRepo({ name: "shared" });
    cleanups.push(() => repo.cleanup());
    const reg = await a.api("POST", "/repositories", { path: repo.path });
    expect(reg.status).toBe(201);
    // No holder (as registered before migration 013): every runner can hold it, and its path is
    // outside every hidden home, so each runner can make worktrees of it.
    await sql(databaseUrl, "DELETE FROM repository_runners WHERE repository_id = $1", [reg.body.id]);
    const newTask = async (title: string) => {
      const t = await a.api("POST", "/tasks", { title, repositories: [{ repositoryId: reg.body.id }] });
      expect(t.status).toBe(201);
      return t.body.id as string;
    };
    const runnerOf = async (id: string) => ((await b.api("GET", `/tasks/${id}`)).body as { runnerId: string }).runnerId;
    type Row = { id: string; liveAgents: number; state: string };
    const runnersSeenBy = async (via: typeof a) =>
      ((await via.api("GET", "/runners")).body as Row[]).map((r) => `${r.id}:${r.state}:${r.liveAgents}`).join(" ");
    // Every runner online with this load, as `via` reads the registry (placement reads the same rows).
    const loadSeenBy = (via: typeof a, want: Record<string, number>) =>
      waitFor(
        async () => {
          const rows = (await via.api("GET", "/runners")).body as Row[];
          const got = Object.fromEntries(rows.map((r) => [r.id, r.liveAgents]));
          return rows.every((r) => r.state === "online") && JSON.stringify(got) === JSON.stringify(want);
        },
        `load ${JSON.stringify(want)} seen through ${via.id}, every runner online`,
      );
    const expectPlaced = async (id: string, want: string, via: typeof a) =>
      expect(await runnerOf(id), `placed through ${via.id}; runners now: ${await runnersSeenBy(via)}`).toBe(want);

    // A and C each run one agent (placed there by name); B runs none.
    for (const [title, runnerId] of [
      ["busy a", "runner_a"],
      ["busy c", "runner_c"],
    ] as const) {
      const id = await newTask(title);
      expect((await a.api("POST", `/tasks/${id}/sessions`, { runnerId })).status).toBe(201);
      expect(await runnerOf(id)).toBe(runnerId);
    }
    await loadSeenBy(a, { runner_a: 1, runner_b: 0, runner_c: 1 });

    // Through A (which has room: it would be first among equals): to B, the least loaded.
    const first = await newTask("goes to the idle runner");
    expect((await a.api("POST", `/tasks/${first}/sessions`, {})).status).toBe(201);
    await expectPlaced(first, "runner_b", a);

    // B idle again (its task archived: the agent stopped), then through C: to B again. B's row
    // counts its agents at each heartbeat, so it still reads 0 until B's next beat after the
    // launch: waiting for the 1 first makes the 0 that follows mean the agent stopped, not a row
    // that has not caught up (otherwise the stale 0 passes, B's next beat writes 1, and C, seeing
    // every runner at 1, rightly keeps the launch).
    await loadSeenBy(c, { runner_a: 1, runner_b: 1, runner_c: 1 });
    expect((await a.api("POST", `/tasks/${first}/archive`)).status).toBe(202);
    await loadSeenBy(c, { runner_a: 1, runner_b: 0, runner_c: 1 });
    const second = await newTask("goes to the idle runner too");
    expect((await c.api("POST", `/tasks/${second}/sessions`, {})).status).toBe(201);
    await expectPlaced(second, "runner_b", c);
    const agents = await sql<{ runner_id: string; n: string }>(
      databaseUrl,
      "SELECT runner_id, count(*) AS n FROM agent_processes GROUP BY runner_id ORDER BY runner_id",
    );
    expect(agents.map((r) => [r.runner_id, Number(r.n)])).toEqual([
      ["runner_a", 1],
      ["runner_b", 1],
      ["runner_c", 1],
    ]);
  });
});
