import { existsSync, readlinkSync, realpathSync } from "node:fs";
import WebSocket from "ws";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { makeRepo } from "../fixture/git.js";
import { waitFor, waitForSession } from "../fixture/server.js";
import type { Cleanups } from "./helpers.js";
import { canUnshare, sql, stopRunner, traceLinesUnder, type IsolatedRunner } from "./isolated.js";
import { agentPids, threeRunners } from "./three-runners.js";

/** Opens a terminal WebSocket, types `input`, and resolves with the output once it contains `until`. */
function terminalOutput(url: string, input: string, until: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    let text = "";
    const timer = setTimeout(() => {
      ws.terminate();
      reject(new Error(`terminal output so far: ${text}`));
    }, 20_000);
    ws.on("open", () => ws.send(JSON.stringify({ type: "input", data: input })));
    ws.on("message", (d: Buffer) => {
      text += d.toString("utf8");
      if (text.includes(until)) {
        clearTimeout(timer);
        ws.close();
        resolve(text);
      }
    });
    ws.on("unexpected-response", (_req, res) => reject(new Error(`terminal refused: ${res.statusCode}`)));
    ws.on("error", reject);
  });
}

describe("placement and forwarding across isolated runners (PostgreSQL)", { timeout: 300_000 }, () => {
  const cleanups: Cleanups = [];
  beforeAll(() => {
    // Each runner must not see the others' homes: that needs mount namespaces (we run as root).
    expect(canUnshare(), "unshare --mount with a tmpfs must work on this machine").toBe(true);
  });
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
  });

  it("RUN-9: a task placed on runner C by label, started through A, runs on C; prompt, Changes, diff and archive through B act on C's worktree; A and B never name a path under C's home", async () => {
    const { databaseUrl, homes, a, b, c } = await threeRunners(cleanups, { trace: true });
    const cHome = realpathSync(homes.c);
    const repo = await makeRepo();
    // A local path is held by the runner that registered it: C.
    const reg = await c.api("POST", "/repositories", { path: repo.path });
    expect(reg.status).toBe(201);
    const created = await a.api("POST", "/tasks", { title: "On the GPU box", repositories: [{ repositoryId: reg.body.id }], runnerLabels: ["GPU"] });
    expect(created.status).toBe(201);
    const task = created.body as { id: string };
    expect((await b.api("GET", `/tasks/${task.id}`)).body).toMatchObject({ runnerId: null, runnerLabels: ["gpu"] });

    // A label no runner advertises: refused with a clear code, nothing placed.
    const nowhere = await a.api("POST", "/tasks", { title: "Needs a TPU", repositories: [{ repositoryId: reg.body.id }], runnerLabels: ["tpu"] });
    const refused = await a.api("POST", `/tasks/${nowhere.body.id}/sessions`, { prompt: "say hi" });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: "no_runner_available", details: { reason: "no_match", labels: ["tpu"] } });
    expect((await a.api("GET", `/tasks/${nowhere.body.id}/environment`)).status).toBe(404);

    const started = await a.api("POST", `/tasks/${task.id}/sessions`, { prompt: "write hello.txt made on C" });
    expect(started.status).toBe(201);
    const sessionId = started.body.id as string;
    expect((await b.api("GET", `/tasks/${task.id}`)).body).toMatchObject({ runnerId: "runner_c", runnerState: "online" });
    await waitForSession(b.api, sessionId, ["waiting_for_input"], 60_000);

    // The agent runs on C: its process is C's, its cwd under C's home.
    const [pid] = await agentPids(databaseUrl, "runner_c");
    expect(pid).toBeGreaterThan(0);
    expect(readlinkSync(`/proc/${pid}/cwd`).startsWith(`${cHome}/`)).toBe(true);
    expect(await agentPids(databaseUrl, "runner_a")).toEqual([]);
    expect(await agentPids(databaseUrl, "runner_b")).toEqual([]);

    // Through B: the environment as C sees it (its disk), a prompt, Changes and a diff.
    const env = await b.api("GET", `/tasks/${task.id}/environment`);
    expect(env.status).toBe(200);
    const worktree = env.body.repositories[0].worktreePath as string;
    expect(realpathSync(worktree).startsWith(`${cHome}/`)).toBe(true);
    expect(env.body.repositories[0].worktreeState).toBe("ok");
    const prompted = await b.api("POST", `/sessions/${sessionId}/prompt`, { prompt: "write second.txt prompted through B" });
    expect(prompted.status).toBe(202);
    await waitFor(
      async () => (await b.api("GET", `/sessions/${sessionId}`)).body.state === "waiting_for_input" && existsSync(`${worktree}/second.txt`),
      "the prompt's turn on C",
      60_000,
    );
    const changes = await b.api("GET", `/tasks/${task.id}/changes`);
    expect(changes.status).toBe(200);
    expect((changes.body.repositories[0].files as { path: string }[]).map((f) => f.path).sort()).toEqual(["hello.txt", "second.txt"]);
    const diff = await b.api("GET", `/tasks/${task.id}/changes/diff?repositoryId=${reg.body.id}&path=second.txt`);
    expect(diff.status).toBe(200);
    expect(JSON.stringify(diff.body)).toContain("prompted through B");

    // Review comments are anchored in C's files: added through B, edited through A.
    const comment = await b.api("POST", `/tasks/${task.id}/comments`, { repositoryId: reg.body.id, path: "second.txt", line: 1, body: "check this" });
    expect(comment.status).toBe(201);
    const edited = await a.api("PATCH", `/comments/${comment.body.id}`, { body: "check this twice" });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ body: "check this twice", outdated: false });

    // The terminal through A: a shell on C, in C's worktree (the WebSocket is piped A → C).
    const out = await terminalOutput(
      `${a.url.replace("http", "ws")}/api/v1/tasks/${task.id}/terminal?repositoryId=${reg.body.id}`,
      "pwd -P; ls\n",
      "second.txt",
    );
    expect(out).toContain(realpathSync(worktree));

    // Two prompts at once through A and B: the owner's reservation admits one, the other is session_busy.
    // Each turn holds the session until the test cancels it, so the later request meets a running
    // turn even when a loaded machine delays its forwarding (a turn that ended first would admit it too).
    const both = await Promise.all([
      a.api("POST", `/sessions/${sessionId}/prompt`, { prompt: "sleep 600000\nsay once" }),
      b.api("POST", `/sessions/${sessionId}/prompt`, { prompt: "sleep 600000\nsay twice" }),
    ]);
    expect(both.map((r) => r.status).sort()).toEqual([202, 409]);
    expect(both.find((r) => r.status === 409)!.body.error.code).toBe("session_busy");
    expect((await a.api("POST", `/sessions/${sessionId}/cancel`)).status).toBe(202);
    await waitForSession(a.api, sessionId, ["waiting_for_input"], 30_000);

    // grove doctor through A audits A's own environments only and reports C's as skipped.
    const doctor = await a.api("GET", "/doctor");
    expect(doctor.status).toBe(200);
    expect(doctor.body).toMatchObject({ ok: true, skipped: [{ taskId: task.id, runnerId: "runner_c" }] });

    // Archive through B: C runs the job on its own worktree.
    const archived = await b.api("POST", `/tasks/${task.id}/archive`);
    expect(archived.status).toBe(202);
    const job = await waitFor(
      async () => {
        const jobs = (await b.api("GET", `/cleanup-jobs?taskId=${task.id}`)).body as { id: string; state: string; runnerId?: string }[];
        return jobs.find((j) => j.id === archived.body.jobId && j.state === "succeeded");
      },
      "the archive job done by C",
      60_000,
    );
    expect(job).toBeDefined();
    expect((await sql<{ runner_id: string }>(databaseUrl, "SELECT runner_id FROM cleanup_jobs WHERE id = $1", [archived.body.jobId]))[0]?.runner_id).toBe(
      "runner_c",
    );
    expect(existsSync(worktree)).toBe(false);
    expect((await a.api("GET", `/tasks/${task.id}`)).body.archivedAt).not.toBeNull();

    // The hidden mounts: A and B (and every process they started) never named a path under C's home.
    await stopRunner(a);
    await stopRunner(b);
    for (const r of [a, b] as IsolatedRunner[]) {
      expect(traceLinesUnder(r.trace!, cHome), `${r.id} touched C's home`).toEqual([]);
      expect(traceLinesUnder(r.trace!, homes.c), `${r.id} touched C's home`).toEqual([]);
      // The trace is real: it saw the runner's own home.
      expect(traceLinesUnder(r.trace!, realpathSync(r.home)).length).toBeGreaterThan(0);
    }
    // Three traced runner processes and a whole task's life: 43 s beside another test run, so the
    // bound (a hang, not speed) is well above the default 60 s.
  }, 180_000);
});
