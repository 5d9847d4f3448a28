import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DATABASES, freshDatabase } from "../fixture/db.js";
import { repoAndTask } from "../fixture/scenario.js";
import { openEvents, serverPerTest, startTestServer, waitFor, waitForSession } from "../fixture/server.js";

type Row = { key: string; label?: string; tokensIn: number; tokensOut: number; cost: number; currency: string; estimated: boolean };

// USE-1: every usage_update and every turn's usage is recorded per session, on both databases,
// and rolled up per task, repository, agent, runner and day.
describe.each(DATABASES)("USE-1 usage recording (%s)", (kind) => {
  const perTest = serverPerTest(kind);

  it("USE-1 a scripted agent's usage_update and turn usage land on the session, in usage.updated frames and in every roll-up", async () => {
    const srv = await perTest.start();
    const events = await openEvents(srv.url);
    try {
      const { task, repository } = await repoAndTask(srv, { title: "Counted" });
      const s = await srv.api("POST", `/tasks/${task.id}/sessions`, { prompt: "usage 1000 200 0.25\nusage 500 100 0.4" });
      expect(s.status).toBe(201);
      await waitForSession(srv.api, s.body.id, ["waiting_for_input"]);
      const session = (await srv.api("GET", `/sessions/${s.body.id}`)).body;
      // Tokens from the turn's PromptResponse.usage; context = the latest usage_update; cost = the
      // agent's own cumulative cost (not estimated).
      expect(session.usage).toEqual({ tokensIn: 1500, tokensOut: 300, contextUsed: 1800, contextWindow: 200000, cost: 0.4, currency: "USD", estimated: false });
      await waitFor(
        () => events.frames.some((f) => f.type === "usage.updated" && f.data.sessionId === s.body.id && f.data.usage.tokensIn === 1500),
        "a usage.updated frame with the turn's tokens",
      );

      // A second turn adds its tokens; the cost is cumulative as reported.
      expect((await srv.api("POST", `/sessions/${s.body.id}/prompt`, { prompt: "usage 10 5 0.5" })).status).toBe(202);
      await waitFor(
        async () => ((await srv.api("GET", `/sessions/${s.body.id}`)).body.usage?.tokensIn === 1510 ? true : undefined),
        "the second turn's tokens",
      );
      const after = (await srv.api("GET", `/sessions/${s.body.id}`)).body.usage;
      expect(after).toMatchObject({ tokensIn: 1510, tokensOut: 305, cost: 0.5 });

      const day = new Date().toISOString().slice(0, 10);
      const rows = async (q: string) => ((await srv.api("GET", `/usage?${q}`)).body as { rows: Row[] }).rows;
      const expected = { tokensIn: 1510, tokensOut: 305, cost: 0.5, currency: "USD", estimated: false };
      expect(await rows("groupBy=task")).toEqual([{ key: task.id, label: "Counted", cacheRead: 0, cacheWrite: 0, ...expected }]);
      expect(await rows("groupBy=repository")).toEqual([expect.objectContaining({ key: repository.id, label: repository.name, ...expected })]);
      expect(await rows("groupBy=agent")).toEqual([expect.objectContaining({ key: "scripted", ...expected })]);
      expect(await rows("groupBy=day")).toEqual([expect.objectContaining({ key: day, ...expected })]);
      const runners = await rows("groupBy=runner");
      expect(runners).toHaveLength(1);
      expect(runners[0]).toMatchObject(expected);
      expect(await rows(`groupBy=day&from=${day}&to=${day}&taskId=${task.id}`)).toEqual([expect.objectContaining({ key: day, ...expected })]);
      expect(await rows("groupBy=day&from=2000-01-01&to=2000-01-02")).toEqual([]);
    } finally {
      events.close();
    }
  });

  it("USE-1 tokens without a cost are priced from GROVE_HOME/prices.json and marked estimated", async () => {
    const db = await freshDatabase(kind);
    mkdirSync(db.home, { recursive: true });
    writeFileSync(join(db.home, "prices.json"), JSON.stringify({ "scripted-small": { input: 2, output: 10 } }));
    const again = await startTestServer(kind, db);
    try {
      const { task } = await repoAndTask(again, { title: "Estimated" });
      const s = await again.api("POST", `/tasks/${task.id}/sessions`, { prompt: "usage 1000000 100000" });
      await waitForSession(again.api, s.body.id, ["waiting_for_input"]);
      // 1M in at 2 USD/M + 0.1M out at 10 USD/M = 3 USD.
      expect((await again.api("GET", `/sessions/${s.body.id}`)).body.usage).toMatchObject({ tokensIn: 1000000, tokensOut: 100000, cost: 3, estimated: true });
      expect(((await again.api("GET", "/usage?groupBy=agent")).body as { rows: Row[] }).rows).toEqual([
        expect.objectContaining({ key: "scripted", cost: 3, estimated: true }),
      ]);
    } finally {
      await again.close();
    }
  });

  it("USE-1 GET /usage pages by key and refuses bad queries", async () => {
    const srv = await perTest.start();
    const ids: string[] = [];
    const { repository } = await repoAndTask(srv, { title: "unused" });
    for (const title of ["A", "B", "C"]) {
      const task = (await srv.api("POST", "/tasks", { title, repositories: [{ repositoryId: repository.id }] })).body;
      const s = await srv.api("POST", `/tasks/${task.id}/sessions`, { prompt: "usage 10 1" });
      await waitForSession(srv.api, s.body.id, ["waiting_for_input"]);
      ids.push(task.id);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: { rows: Row[]; nextCursor: string | null } } = await srv.api(
        "GET",
        `/usage?groupBy=task&limit=2${cursor ? `&cursor=${cursor}` : ""}`,
      );
      seen.push(...page.body.rows.map((r) => r.key));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual([...ids].sort());
    for (const q of ["groupBy=week", "from=yesterday", "from=2026-02-02&to=2026-02-01", "cursor=nope", "limit=0"]) {
      const r = await srv.api("GET", `/usage?${q}`);
      expect(r.status, q).toBe(400);
      expect(r.body.error.code).toBe("invalid_request");
    }
    expect((await srv.api("GET", "/usage?taskId=tsk_missing")).status).toBe(404);
  });
});
