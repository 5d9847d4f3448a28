import { existsSync, readFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import WebSocket from "ws";
import { beforeAll, describe, expect, it } from "vitest";
import { makeRepo } from "../fixture/git.js";
import { waitFor, waitForSession } from "../fixture/server.js";
import { canUnshare, sql, stopRunner, traceLinesUnder } from "./isolated.js";
import { FAST_BEAT, threeRunners } from "./three-runners.js";
import { cleanupsAfterEach } from "../fixture/cleanups.js";

/** The HTTP status a WebSocket upgrade is refused with (or "open"). */
function upgradeStatus(url: string): Promise<number | "open"> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.on("unexpected-response", (_req, res) => {
      resolve(res.statusCode ?? 0);
      ws.terminate();
    });
    ws.on("open", () => {
      resolve("open");
      ws.close();
    });
    ws.on("error", reject);
  });
}

describe("an owner runner dies and returns (PostgreSQL)", { timeout: 300_000 }, () => {
  const cleanups = cleanupsAfterEach();
  beforeAll(() => expect(canUnshare(), "unshare --mount with a tmpfs must work on this machine").toBe(true));

  it("RUN-11: kill -9 runner C mid-turn → its task shows runner_offline through A and B within the bound; every file operation is 409 runner_offline; nothing deleted; C restarted → the session resumes with session/load in the same cwd, usable through A", async () => {
    const { databaseUrl, homes, a, b, c, restartC } = await threeRunners(cleanups, { trace: true, env: { GROVE_RUNNER_HEARTBEAT_MS: FAST_BEAT } });
    const reg = await c.api("POST", "/repositories", { path: (await makeRepo()).path });
    const task = (await a.api("POST", "/tasks", { title: "Dies mid-turn", repositories: [{ repositoryId: reg.body.id }], runnerLabels: ["gpu"] })).body as {
      id: string;
    };
    const started = await a.api("POST", `/tasks/${task.id}/sessions`, { prompt: "write first.txt before the crash" });
    expect(started.status).toBe(201);
    const sessionId = started.body.id as string;
    await waitForSession(a.api, sessionId, ["waiting_for_input"], 60_000);
    const worktree = (await a.api("GET", `/tasks/${task.id}/environment`)).body.repositories[0].worktreePath as string;
    expect(worktree.startsWith(homes.c)).toBe(true);

    expect((await a.api("POST", `/sessions/${sessionId}/prompt`, { prompt: "sleep 60000" })).status).toBe(202);
    await waitForSession(b.api, sessionId, ["running"], 20_000);
    process.kill(c.pid, "SIGKILL");
    await c.exited;
    const killedAt = Date.now();
    for (const via of [a, b]) {
      await waitFor(async () => (await via.api("GET", `/tasks/${task.id}`)).body.runnerState === "offline", `runner_offline through ${via.id}`, 5_000, 20);
    }
    // Within the heartbeat bound (3 × 200 ms) plus polling and scheduling slack.
    expect(Date.now() - killedAt).toBeLessThan(3 * Number(FAST_BEAT) + 2_000);
    expect((await a.api("GET", `/tasks/${task.id}/environment`)).body).toMatchObject({ runnerId: "runner_c", runnerState: "offline" });

    const refused = {
      prompt: await a.api("POST", `/sessions/${sessionId}/prompt`, { prompt: "hello?" }),
      changes: await b.api("GET", `/tasks/${task.id}/changes`),
      diff: await b.api("GET", `/tasks/${task.id}/changes/diff?repositoryId=${reg.body.id}&path=first.txt`),
      commit: await a.api("POST", `/tasks/${task.id}/commit`, { message: "x" }),
      update: await b.api("POST", `/tasks/${task.id}/update-from-base`, {}),
      merge: await a.api("POST", `/tasks/${task.id}/merge`, {}),
      pullRequest: await b.api("POST", `/tasks/${task.id}/pull-requests`, {}),
      archive: await a.api("POST", `/tasks/${task.id}/archive`),
    };
    for (const [what, r] of Object.entries(refused)) {
      expect({ what, status: r.status, code: r.body?.error?.code, runnerId: r.body?.error?.details?.runnerId }).toEqual({
        what,
        status: 409,
        code: "runner_offline",
        runnerId: "runner_c",
      });
    }
    expect(await upgradeStatus(`${a.url.replace("http", "ws")}/api/v1/tasks/${task.id}/terminal?repositoryId=${reg.body.id}`)).toBe(409);
    // Nothing deleted or created.
    expect(existsSync(join(worktree, "first.txt"))).toBe(true);
    expect((await a.api("GET", `/tasks/${task.id}/sessions`)).body).toHaveLength(1);
    expect((await a.api("GET", `/cleanup-jobs?taskId=${task.id}`)).body).toEqual([]);
    expect((await a.api("GET", `/tasks/${task.id}`)).body.archivedAt).toBeNull();

    // C returns with the same home and id: its recovery runs, then the task works through A again.
    const c2 = await restartC();
    await waitFor(async () => (await a.api("GET", `/tasks/${task.id}`)).body.runnerState === "online", "runner C online again through A", 10_000);
    await waitFor(async () => (await a.api("GET", `/sessions/${sessionId}`)).body.state !== "running", "C's recovery of the interrupted turn", 30_000);
    const again = await a.api("POST", `/sessions/${sessionId}/prompt`, { prompt: "write after.txt after the restart" });
    expect(again.status).toBe(202);
    await waitFor(
      async () => (await a.api("GET", `/sessions/${sessionId}`)).body.state === "waiting_for_input" && existsSync(join(worktree, "after.txt")),
      "the resumed turn on C",
      60_000,
    );
    const acp = (await sql<{ acp_session_id: string }>(databaseUrl, "SELECT acp_session_id FROM sessions WHERE id = $1", [sessionId]))[0]!.acp_session_id;
    const state = JSON.parse(readFileSync(join(homes.c, "agents", "scripted", `${acp}.json`), "utf8")) as { cwd: string; loads: { cwd: string }[] };
    expect(state.loads.length).toBeGreaterThanOrEqual(1);
    expect(state.loads.at(-1)!.cwd).toBe(state.cwd);
    expect(state.cwd).toBe(
      (await sql<{ workspace_path: string }>(databaseUrl, "SELECT workspace_path FROM task_environments WHERE task_id = $1", [task.id]))[0]!.workspace_path,
    );
    const changes = await a.api("GET", `/tasks/${task.id}/changes`);
    expect((changes.body.repositories[0].files as { path: string }[]).map((f) => f.path).sort()).toEqual(["after.txt", "first.txt"]);
    expect(c2.id).toBe("runner_c");

    // While C was away and after, A and B (and their children) never named a path under C's home.
    await stopRunner(a);
    await stopRunner(b);
    for (const r of [a, b]) {
      expect(traceLinesUnder(r.trace!, realpathSync(homes.c)), `${r.id} touched C's home`).toEqual([]);
      expect(traceLinesUnder(r.trace!, realpathSync(r.home)).length).toBeGreaterThan(0);
    }
  });
});
