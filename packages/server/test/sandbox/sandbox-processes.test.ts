import { readdirSync, readFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { ONE_DATABASE, freshDatabase } from "../fixture/db.js";
import { repoAndTask } from "../fixture/scenario.js";
import { apiClient, spawnServer, startTestServer, waitFor, waitForSession, type TestServer } from "../fixture/server.js";
import { runResults, turn } from "./helpers.js";
import { cleanupsAfterEach } from "../fixture/cleanups.js";

/** Host pids whose command line is exactly `argv` (NUL-joined as in /proc/<pid>/cmdline). */
function pidsRunning(argv: string[]): number[] {
  const want = `${argv.join("\0")}\0`;
  const out: number[] = [];
  for (const p of readdirSync("/proc")) {
    if (!/^\d+$/.test(p)) continue;
    try {
      if (readFileSync(`/proc/${p}/cmdline`, "utf8") === want) out.push(Number(p));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** A turn that leaves three kinds of escaping jobs behind: plain background, nohup, setsid. */
function escapers(tag: number): { script: string; argvs: string[][] } {
  const argvs = [0, 1, 2].map((i) => ["sleep", String(tag + i)]);
  const script = [
    `run sleep ${tag} > /dev/null 2>&1 < /dev/null &`,
    `run nohup sleep ${tag + 1} > /dev/null 2>&1 < /dev/null &`,
    `run setsid sleep ${tag + 2} > /dev/null 2>&1 < /dev/null &`,
  ].join("\n");
  return { script, argvs };
}

describe.each(ONE_DATABASE)("SBX-1 SEC-7 every process of a sandbox dies with it (%s)", (kind) => {
  const cleanups = cleanupsAfterEach();

  it("SBX-1: after kill -9 of the server, background, nohup and setsid jobs of a confined agent are gone without any restart", async () => {
    const db = await freshDatabase(kind);
    cleanups.push(async () => {
      await db.drop();
      await rm(db.home, { recursive: true, force: true });
    });
    const server = await spawnServer({ GROVE_HOME: db.home, GROVE_DATABASE_URL: db.databaseUrl });
    cleanups.push(async () => {
      server.child.kill("SIGKILL");
      await server.exited;
    });
    const srv = { api: apiClient(server.url), url: server.url, home: db.home } as unknown as TestServer;
    const { repo, task } = await repoAndTask(srv);
    cleanups.push(() => repo.cleanup());
    const s = await srv.api("POST", `/tasks/${task.id}/sessions`, {});
    expect(s.body.sandbox).toBe("confined");
    await waitForSession(srv.api, s.body.id, ["waiting_for_input"]);
    const tag = 70_000 + Math.floor(Math.random() * 20_000) * 3;
    const { script, argvs } = escapers(tag);
    expect(runResults(await turn(srv, s.body.id, script)).map((r) => r.code)).toEqual([0, 0, 0]);
    for (const argv of argvs) await waitFor(() => pidsRunning(argv).length === 1, `${argv.join(" ")} running`);
    server.child.kill("SIGKILL");
    await server.exited;
    await waitFor(() => argvs.every((argv) => pidsRunning(argv).length === 0), "every job of the sandbox gone", 10_000);
  });

  it("SBX-1 SEC-7: archiving the task ends background, nohup and setsid jobs of its confined agent", async () => {
    const srv = await startTestServer(kind);
    cleanups.push(() => srv.close());
    const { repo, task } = await repoAndTask(srv);
    cleanups.push(() => repo.cleanup());
    const s = await srv.api("POST", `/tasks/${task.id}/sessions`, {});
    await waitForSession(srv.api, s.body.id, ["waiting_for_input"]);
    const tag = 130_000 + Math.floor(Math.random() * 20_000) * 3;
    const { script, argvs } = escapers(tag);
    expect(runResults(await turn(srv, s.body.id, script)).map((r) => r.code)).toEqual([0, 0, 0]);
    for (const argv of argvs) await waitFor(() => pidsRunning(argv).length === 1, `${argv.join(" ")} running`);
    const a = await srv.api("POST", `/tasks/${task.id}/archive`);
    expect(a.status).toBe(202);
    await waitFor(
      async () => (await srv.api("GET", `/cleanup-jobs?taskId=${task.id}`)).body.find((j: any) => j.id === a.body.jobId)?.state === "succeeded",
      "archive done",
      30_000,
    );
    expect(argvs.map((argv) => pidsRunning(argv).length)).toEqual([0, 0, 0]);
  });
});
