import { writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import http from "node:http";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { makeRepo, tempDir } from "../fixture/git.js";
import { waitFor } from "../fixture/server.js";
import { runGrove } from "../cli/run-cli.js";
import { sql } from "./isolated.js";
import { childRunner, inProcessRunner, sharedDatabase } from "./helpers.js";
import { cleanupsAfterEach } from "../fixture/cleanups.js";

/** GET `path` on `base` with an explicit Host header (fetch cannot set one). */
function getWithHost(base: string, path: string, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(new URL(path, base), { headers: { host } }, (res) => {
      let body = "";
      res.on("data", (d: Buffer) => (body += d.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("a forwarded launch that times out (PostgreSQL)", { timeout: 120_000 }, () => {
  const cleanups = cleanupsAfterEach();

  it("RUN-13: a forward that times out is 502 runner_unreachable and never resent; the client's retry meets the owner's launch reservation (workspace_preparing): one session, one agent", async () => {
    const { databaseUrl } = await sharedDatabase(cleanups);
    const a = await inProcessRunner(cleanups, databaseUrl, "runner_a", { GROVE_FORWARD_TIMEOUT_MS: "300" });
    const c = await inProcessRunner(cleanups, databaseUrl, "runner_c", { GROVE_RUNNER_LABELS: "gpu" });
    const reg = await c.api("POST", "/repositories", { path: (await makeRepo()).path });
    // The setup script holds the materialization (environment `creating`) until the test has seen
    // the 502 and the retry's 409 and writes the gate file (at most 60 s): however slow a loaded
    // machine is to answer, both fall inside it.
    const gateDir = await tempDir("grove-gate-");
    cleanups.push(() => rm(gateDir, { recursive: true, force: true }));
    const gate = join(gateDir, "go");
    const setupScript = `i=0; while [ ! -e '${gate}' ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done`;
    expect((await c.api("PATCH", `/repositories/${reg.body.id}`, { setupScript })).status).toBe(200);
    const task = (await a.api("POST", "/tasks", { title: "Slow launch", repositories: [{ repositoryId: reg.body.id }], runnerLabels: ["gpu"] })).body as {
      id: string;
    };

    const t0 = Date.now();
    const first = await a.api("POST", `/tasks/${task.id}/sessions`, { prompt: "append once.txt x" });
    expect(first.status).toBe(502);
    expect(first.body.error).toMatchObject({ code: "runner_unreachable", details: { runnerId: "runner_c" } });
    // The forward gave up (300 ms), it did not wait for the launch to end (held by the gate).
    expect(Date.now() - t0).toBeLessThan(10_000);

    // The person retries at once: the launch is still preparing on C, nothing is written twice.
    // A retry's own forward may time out too (C answers a 409 in well under 300 ms on a quiet
    // machine, not always on a loaded one): the person retries again, each never resent.
    let retry = await a.api("POST", `/tasks/${task.id}/sessions`, { prompt: "append once.txt x" });
    for (let i = 0; i < 10 && retry.status === 502; i++) retry = await a.api("POST", `/tasks/${task.id}/sessions`, { prompt: "append once.txt x" });
    expect(retry.status).toBe(409);
    expect(retry.body.error.code).toBe("workspace_preparing");
    writeFileSync(gate, "");

    // The first launch finishes on C: one session, one agent, the prompt ran once.
    const [session] = await waitFor(
      async () => {
        const list = (await a.api("GET", `/tasks/${task.id}/sessions`)).body as { id: string; state: string }[];
        return Array.isArray(list) && list.length === 1 && list[0]!.state === "waiting_for_input" ? list : undefined;
      },
      "the first launch done on C",
      60_000,
    );
    expect((await a.api("GET", `/tasks/${task.id}`)).body.runnerId).toBe("runner_c");
    expect(c.server.deps.agents.liveCount()).toBe(1);
    expect(a.server.deps.agents.liveCount()).toBe(0);
    // Reads through A are forwarded to C under the same 300 ms timeout: on a loaded machine one
    // may time out (502, never resent), so each is read until C answers.
    const throughA = (path: string) =>
      waitFor(
        async () => {
          const r = await a.api("GET", path);
          if (r.status === 502) return undefined;
          return r;
        },
        `GET ${path} through A`,
        30_000,
      );
    const env = (await throughA(`/tasks/${task.id}/environment`)).body;
    // The prompt's file, read on its owner: a diff needs git on C, which can take longer than the
    // 300 ms forward on every try when another test run shares the two cores.
    const diff = await c.api("GET", `/tasks/${task.id}/changes/diff?repositoryId=${reg.body.id}&path=once.txt`);
    expect(diff.status).toBe(200);
    expect(env.runnerId).toBe("runner_c");
    expect((await a.api("GET", `/tasks/${task.id}/sessions`)).body).toHaveLength(1);
    expect(session!.id).toBeTruthy();
  });

  it("RUN-14: the Host of a runner's own GROVE_RUNNER_URL is trusted (SEC-5), other names still are not", async () => {
    const { databaseUrl } = await sharedDatabase(cleanups);
    const c = await inProcessRunner(cleanups, databaseUrl, "runner_c", { GROVE_RUNNER_URL: "http://runner-c.internal:7999", GROVE_RUNNER_ALLOW_HTTP: "1" });
    expect((await getWithHost(c.url, "/api/v1/health", "runner-c.internal:7999")).status).toBe(200);
    const other = await getWithHost(c.url, "/api/v1/health", "runner-d.internal:7999");
    expect(other.status).toBe(403);
    expect(other.body).toContain("host_not_allowed");
    expect((await getWithHost(c.url, "/api/v1/health", "runner-c.internal:8000")).status).toBe(403);
  });

  it("RUN-15: `grove task create --runner-label` records the labels; `grove task start --runner` places on that runner through another one", async () => {
    const { databaseUrl } = await sharedDatabase(cleanups);
    const a = await inProcessRunner(cleanups, databaseUrl, "runner_a");
    const c = await inProcessRunner(cleanups, databaseUrl, "runner_c", { GROVE_RUNNER_LABELS: "gpu,big" });
    const reg = await c.api("POST", "/repositories", { path: (await makeRepo()).path });
    const created = await runGrove([
      "task",
      "create",
      "--title",
      "cli",
      "--repo",
      reg.body.id,
      "--runner-label",
      "GPU",
      "--runner-label",
      "big",
      "--quiet",
      "--server",
      a.url,
    ]);
    expect(created.code, created.stderr).toBe(0);
    const taskId = created.stdout.trim();
    expect((await a.api("GET", `/tasks/${taskId}`)).body.runnerLabels).toEqual(["gpu", "big"]);
    const unknown = await runGrove(["task", "start", taskId, "--runner", "runner_nowhere", "--server", a.url]);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain("runner_unknown");
    const started = await runGrove(["task", "start", taskId, "--runner", "runner_c", "--quiet", "--server", a.url]);
    expect(started.code, started.stderr).toBe(0);
    expect((await a.api("GET", `/tasks/${taskId}`)).body).toMatchObject({ runnerId: "runner_c", runnerState: "online" });
    expect(c.server.deps.agents.liveCount()).toBe(1);
  });

  it("RUN-16: placement skips a runner that refuses the connection (dead within its heartbeat bound) and places on the next fitting one; a repository registered before migration 013 fits every runner", async () => {
    const { databaseUrl } = await sharedDatabase(cleanups);
    const a = await inProcessRunner(cleanups, databaseUrl, "runner_a");
    const b = await childRunner(cleanups, databaseUrl, "runner_b", { GROVE_RUNNER_LABELS: "gpu" });
    const c = await inProcessRunner(cleanups, databaseUrl, "runner_c", { GROVE_RUNNER_LABELS: "gpu" });
    const reg = await a.api("POST", "/repositories", { path: (await makeRepo()).path });
    // As if registered before the placement tables existed: no holder, so every runner holds it.
    await sql(databaseUrl, "DELETE FROM repository_runners WHERE repository_id = $1", [reg.body.id]);
    const task = (await a.api("POST", "/tasks", { title: "gpu anywhere", repositories: [{ repositoryId: reg.body.id }], runnerLabels: ["gpu"] })).body as {
      id: string;
    };
    // B dies; for the next 15 s (3 × 5 s heartbeats) it still counts as online, and sorts first.
    b.child.kill("SIGKILL");
    await b.exited;
    expect((await a.api("GET", "/runners")).body.find((r: { id: string }) => r.id === "runner_b").state).toBe("online");
    const s = await a.api("POST", `/tasks/${task.id}/sessions`, {});
    expect(s.status).toBe(201);
    expect((await a.api("GET", `/tasks/${task.id}`)).body.runnerId).toBe("runner_c");
    expect(c.server.deps.agents.liveCount()).toBe(1);
  });
});
