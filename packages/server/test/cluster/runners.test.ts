import { existsSync } from "node:fs";
import { hostname } from "node:os";
import { describe, expect, it } from "vitest";
import { repoAndTask } from "../fixture/scenario.js";
import { openEvents, waitFor, type TestServer } from "../fixture/server.js";
import { childRunner, inProcessRunner, killGroups, sharedDatabase } from "./helpers.js";
import { cleanupsAfterEach } from "../fixture/cleanups.js";

const BEAT = "200"; // ms: offline after 600 ms without a heartbeat

type RunnerRow = {
  id: string;
  host: string;
  url: string;
  labels: string[];
  maxAgents: number | null;
  liveAgents: number;
  state: string;
  version: string;
  lastSeenAt: string;
};
const byId = async (api: TestServer["api"], id: string): Promise<RunnerRow | undefined> =>
  ((await api("GET", "/runners")).body as RunnerRow[]).find((r) => r.id === id);

// PostgreSQL only: several runners share one database only there.
describe("runners registry on PostgreSQL", { timeout: 240_000 }, () => {
  const cleanups = cleanupsAfterEach();

  it("RUN-1 RUN-2 RUN-3: two runners register, are listed through either one, heartbeat, and a kill -9'd one turns offline after the bound", async () => {
    const { databaseUrl } = await sharedDatabase(cleanups);
    const a = await inProcessRunner(cleanups, databaseUrl, "runner_a", {
      GROVE_RUNNER_HEARTBEAT_MS: BEAT,
      GROVE_RUNNER_LABELS: "GPU, big,gpu",
      GROVE_RUNNER_MAX_AGENTS: "3",
      GROVE_RUNNER_URL: "http://a.internal:7420/",
      GROVE_RUNNER_ALLOW_HTTP: "1",
    });
    const events = await openEvents(a.url);
    cleanups.push(async () => events.close());
    const c = await childRunner(cleanups, databaseUrl, "runner_c", { GROVE_RUNNER_HEARTBEAT_MS: BEAT });

    const seenThroughA = await waitFor(() => byId(a.api, "runner_c"), "runner_c listed through runner A");
    expect(seenThroughA).toMatchObject({ id: "runner_c", host: hostname(), url: c.url, labels: [], maxAgents: null, liveAgents: 0, state: "online" });
    expect(seenThroughA.version).toMatch(/^\d+\.\d+\.\d+/);
    // Through the other process, the same registry.
    expect(await byId(c.api, "runner_a")).toMatchObject({ url: "http://a.internal:7420", labels: ["gpu", "big"], maxAgents: 3, state: "online" });
    // runner.updated of C's registration reached A's clients over the event relay.
    await waitFor(
      () => events.frames.some((f) => f.type === "runner.updated" && f.data.runner.id === "runner_c" && f.data.runner.state === "online"),
      "runner.updated for runner_c on A",
      10_000,
    );

    // Heartbeats move lastSeenAt forward.
    const first = Date.parse(seenThroughA.lastSeenAt);
    await waitFor(async () => Date.parse((await byId(a.api, "runner_c"))!.lastSeenAt) > first, "a later heartbeat of runner_c", 5_000);

    c.child.kill("SIGKILL");
    await c.exited;
    const killedAt = Date.now();
    const offline = await waitFor(
      async () => {
        const r = await byId(a.api, "runner_c");
        return r?.state === "offline" ? r : undefined;
      },
      "runner_c offline through A",
      5_000,
    );
    // Never before 3 heartbeats passed since its last one; its row stays, with the last beat.
    expect(Date.now() - Date.parse(offline.lastSeenAt)).toBeGreaterThan(3 * Number(BEAT));
    expect(Date.now() - killedAt).toBeLessThan(5_000);
    expect(await byId(a.api, "runner_a")).toMatchObject({ state: "online" });
  });

  it("RUN-4: a task on a killed runner shows runner_offline through another runner, which refuses to prompt, launch, resume or clean it up, and deletes nothing", async () => {
    const { databaseUrl } = await sharedDatabase(cleanups);
    const a = await inProcessRunner(cleanups, databaseUrl, "runner_a", { GROVE_RUNNER_HEARTBEAT_MS: BEAT });
    const c = await childRunner(cleanups, databaseUrl, "runner_c", { GROVE_RUNNER_HEARTBEAT_MS: BEAT });
    const { task } = await repoAndTask({ api: c.api } as TestServer, { title: "Lives on C" });
    const s = await c.api("POST", `/tasks/${task.id}/sessions`, {});
    expect(s.status).toBe(201);
    expect(s.body.state).toBe("waiting_for_input");
    const envOnA = await a.api("GET", `/tasks/${task.id}/environment`);
    expect(envOnA.body).toMatchObject({ runnerId: "runner_c", runnerState: "online" });
    expect((await a.api("GET", `/tasks/${task.id}`)).body).toMatchObject({ runnerId: "runner_c", runnerState: "online" });
    const worktree = envOnA.body.repositories[0].worktreePath as string;
    expect(existsSync(worktree)).toBe(true);
    const agentPids = (await a.server.deps.store.listAgentProcesses("runner_c")).map((p) => p.pid);
    cleanups.push(async () => killGroups(agentPids));

    c.child.kill("SIGKILL");
    await c.exited;
    await waitFor(async () => (await a.api("GET", `/tasks/${task.id}/environment`)).body.runnerState === "offline", "runnerState offline through A", 5_000);
    expect((await a.api("GET", `/tasks/${task.id}`)).body).toMatchObject({ runnerId: "runner_c", runnerState: "offline" });

    const refusals = {
      prompt: await a.api("POST", `/sessions/${s.body.id}/prompt`, { prompt: "hello" }),
      newSession: await a.api("POST", `/tasks/${task.id}/sessions`, {}),
      resume: await a.api("POST", `/sessions/${s.body.id}/resume`),
      restore: await a.api("POST", `/tasks/${task.id}/environment/restore`),
      archive: await a.api("POST", `/tasks/${task.id}/archive`),
      reset: await a.api("POST", `/tasks/${task.id}/environment/reset`),
      delete: await a.api("DELETE", `/tasks/${task.id}?discardChanges=true`),
    };
    for (const [what, r] of Object.entries(refusals)) {
      expect({ what, status: r.status, code: r.body?.error?.code }).toEqual({ what, status: 409, code: "runner_offline" });
      expect(r.body.error.details.runnerId).toBe("runner_c");
    }
    // Nothing happened: no job, no new session, no agent on A, the worktree and the session untouched.
    expect((await a.api("GET", `/cleanup-jobs?taskId=${task.id}`)).body).toEqual([]);
    expect((await a.api("GET", `/tasks/${task.id}/sessions`)).body).toHaveLength(1);
    expect((await a.api("GET", `/sessions/${s.body.id}`)).body.state).toBe("waiting_for_input");
    expect(a.server.deps.agents.liveCount()).toBe(0);
    expect(existsSync(worktree)).toBe(true);
    expect((await a.api("GET", `/tasks/${task.id}`)).body.archivedAt).toBeNull();
  });

  it("RUN-5 RUN-6: GROVE_RUNNER_MAX_AGENTS refuses a launch beyond capacity with no_runner_available and no partial state; runnerId is checked", async () => {
    const { databaseUrl } = await sharedDatabase(cleanups);
    const a = await inProcessRunner(cleanups, databaseUrl, "runner_a", { GROVE_RUNNER_HEARTBEAT_MS: BEAT, GROVE_RUNNER_MAX_AGENTS: "1" });
    const b = await inProcessRunner(cleanups, databaseUrl, "runner_b", { GROVE_RUNNER_HEARTBEAT_MS: BEAT });
    const one = await repoAndTask(a, { title: "first" });
    const second = await a.api("POST", "/tasks", { title: "second", repositories: [{ repositoryId: one.repository.id }] });
    const two = { task: second.body as { id: string } };

    const s1 = await a.api("POST", `/tasks/${one.task.id}/sessions`, { runnerId: "runner_a" });
    expect(s1.status).toBe(201);
    await waitFor(async () => (await byId(b.api, "runner_a"))?.liveAgents === 1, "runner_a's live load through B", 5_000);

    const full = await a.api("POST", `/tasks/${two.task.id}/sessions`, {});
    expect(full.status).toBe(409);
    expect(full.body.error).toMatchObject({ code: "no_runner_available", details: { reason: "capacity", maxAgents: 1, liveAgents: 1 } });
    expect((await a.api("GET", `/tasks/${two.task.id}/sessions`)).body).toEqual([]);
    expect((await a.api("GET", `/tasks/${two.task.id}/environment`)).status).toBe(404);

    const unknown = await a.api("POST", `/tasks/${two.task.id}/sessions`, { runnerId: "runner_nowhere" });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({ code: "runner_unknown", details: { field: "runnerId" } });
    // B is online but does not hold the repository A registered: never placed there.
    const other = await a.api("POST", `/tasks/${two.task.id}/sessions`, { runnerId: "runner_b" });
    expect(other.status).toBe(409);
    expect(other.body.error).toMatchObject({ code: "no_runner_available", details: { reason: "no_match", runnerId: "runner_b" } });
    expect((await a.api("GET", `/tasks/${two.task.id}/sessions`)).body).toEqual([]);

    // A freed slot admits the launch.
    expect((await a.api("DELETE", `/sessions/${s1.body.id}`)).status).toBe(204);
    await waitFor(() => a.server.deps.agents.liveCount() === 0, "the first agent stopped", 10_000);
    const s2 = await a.api("POST", `/tasks/${two.task.id}/sessions`, {});
    expect(s2.status).toBe(201);
  });
});
