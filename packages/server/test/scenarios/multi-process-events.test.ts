import { rm } from "node:fs/promises";
import { afterEach, describe, expect, it } from "vitest";
import { freshDatabase } from "../fixture/db.js";
import { repoAndTask } from "../fixture/scenario.js";
import { openEvents, startTestServer, tempHome, waitFor, type TestServer } from "../fixture/server.js";

// PostgreSQL only: several server processes share one database only there (ST-3).
describe("ST-3 events reach clients of every server process sharing PostgreSQL", () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
  });

  it("ST-3: a task created and a session run on runner A are seen live by a client of runner B, once each", async () => {
    const db = await freshDatabase("postgres");
    cleanups.push(async () => {
      await db.drop();
      await rm(db.home, { recursive: true, force: true });
    });
    const a: TestServer = await startTestServer("postgres", { home: db.home, databaseUrl: db.databaseUrl }, { GROVE_RUNNER_ID: "runner_a" });
    cleanups.push(() => a.stop());
    const homeB = await tempHome();
    cleanups.push(() => rm(homeB, { recursive: true, force: true }));
    const b: TestServer = await startTestServer("postgres", { home: homeB, databaseUrl: db.databaseUrl }, { GROVE_RUNNER_ID: "runner_b" });
    cleanups.push(() => b.stop());
    const onA = await openEvents(a.url);
    const onB = await openEvents(b.url);
    cleanups.push(async () => {
      onA.close();
      onB.close();
    });

    const { task } = await repoAndTask(a, { title: "Seen everywhere" });
    await waitFor(() => onB.frames.some((f) => f.type === "task.created" && f.data.task.id === task.id), "task.created on runner B", 10_000);
    const long = "y".repeat(12_000);
    const s = await a.api("POST", `/tasks/${task.id}/sessions`, { prompt: `say ${long}` });
    expect(s.status).toBe(201);
    const msg = await waitFor(
      () => onB.frames.find((f) => f.type === "session.message" && f.data.sessionId === s.body.id && f.data.message.role === "agent"),
      "the agent's message on runner B",
      15_000,
    );
    expect(msg.data.message.truncated).toBe(true);
    expect(msg.data.message.text.length).toBeLessThan(long.length);
    // The whole message is one GET away on either runner.
    const full = (await b.api("GET", `/sessions/${s.body.id}/messages`)).body as { role: string; text: string }[];
    expect(full.find((m) => m.role === "agent")?.text).toContain(long);
    // Exactly once on each side: no echo of a relayed frame.
    await new Promise((r) => setTimeout(r, 500));
    expect(onA.frames.filter((f) => f.type === "task.created" && f.data.task.id === task.id)).toHaveLength(1);
    expect(onB.frames.filter((f) => f.type === "task.created" && f.data.task.id === task.id)).toHaveLength(1);
  });
});
