import { existsSync } from "node:fs";
import { rm } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { isGone } from "../agents/fixture.js";
import { freshDatabase } from "../fixture/db.js";
import { repoAndTask } from "../fixture/scenario.js";
import { openEvents, startTestServer, tempHome, waitFor, type TestServer } from "../fixture/server.js";
import { cleanupsAfterEach } from "../fixture/cleanups.js";

const CLUSTER_SECRET = "multi-process-test-secret-0123456789";

/**
 * Two server processes (runners A and B, separate homes) sharing one fresh PostgreSQL database,
 * with a cluster secret so each forwards what belongs to the other's tasks.
 */
async function twoRunners(cleanups: (() => Promise<unknown>)[]): Promise<{ a: TestServer; b: TestServer }> {
  const db = await freshDatabase("postgres");
  cleanups.push(async () => {
    await db.drop();
    await rm(db.home, { recursive: true, force: true });
  });
  const a = await startTestServer(
    "postgres",
    { home: db.home, databaseUrl: db.databaseUrl },
    { GROVE_RUNNER_ID: "runner_a", GROVE_CLUSTER_SECRET: CLUSTER_SECRET },
  );
  cleanups.push(() => a.stop());
  const homeB = await tempHome();
  cleanups.push(() => rm(homeB, { recursive: true, force: true }));
  const b = await startTestServer(
    "postgres",
    { home: homeB, databaseUrl: db.databaseUrl },
    { GROVE_RUNNER_ID: "runner_b", GROVE_CLUSTER_SECRET: CLUSTER_SECRET },
  );
  cleanups.push(() => b.stop());
  return { a, b };
}

// PostgreSQL only: several server processes share one database only there (ST-3).
describe("ST-3 events reach clients of every server process sharing PostgreSQL", () => {
  const cleanups = cleanupsAfterEach();

  it("ST-3: a task created and a session run on runner A are seen live by a client of runner B, once each", async () => {
    const { a, b } = await twoRunners(cleanups);
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

describe("ST-3 LC-3 an archive stops the agents of every server process sharing the task", () => {
  const cleanups = cleanupsAfterEach();

  it("LC-3 ST-3 RUN-9: a session started through runner B runs on the task's runner A; the archive, sent through B, stops every agent before the worktree goes", async () => {
    const { a, b } = await twoRunners(cleanups);

    const { task } = await repoAndTask(a, { title: "Two runners" });
    const s1 = await a.api("POST", `/tasks/${task.id}/sessions`, {});
    expect(s1.body.state).toBe("waiting_for_input");
    const s2 = await b.api("POST", `/tasks/${task.id}/sessions`, {});
    expect(s2.status).toBe(201);
    expect(s2.body.state).toBe("waiting_for_input");
    // Forwarded: the agent lives where the worktree is, never on the runner that took the request.
    expect(b.server.deps.agents.get(s2.body.id)).toBeUndefined();
    const pids = [s1, s2].map((s) => a.server.deps.agents.get(s.body.id)?.pid);
    expect(pids.every((p) => typeof p === "number")).toBe(true);
    const ws = (await a.api("GET", `/sessions/${s1.body.id}/workspace`)).body;

    const archive = await b.api("POST", `/tasks/${task.id}/archive`);
    expect(archive.status).toBe(202);
    const job = await waitFor(
      async () => {
        const jobs = (await a.api("GET", `/cleanup-jobs?taskId=${task.id}`)).body as { id: string; state: string; lastError: string | null }[];
        const j = jobs.find((x) => x.id === archive.body.jobId);
        return j && ["succeeded", "failed", "retry_wait"].includes(j.state) ? j : undefined;
      },
      "the archive job",
      20_000,
    );
    expect(job).toMatchObject({ state: "succeeded", lastError: null });
    expect(pids.filter((p) => !isGone(p!))).toEqual([]);
    expect(existsSync(ws.workspacePath)).toBe(false);
  });
});
