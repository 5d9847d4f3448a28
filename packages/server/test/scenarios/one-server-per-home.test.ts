import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { freshDatabase } from "../fixture/db.js";
import { makeRepo, tempDir, type TestRepo } from "../fixture/git.js";
import { apiClient, spawnServer, startTestServer, waitForSession, type ChildServer, type TestServer } from "../fixture/server.js";

const START = resolve(import.meta.dirname, "..", "..", "..", "..", "scripts", "start.mjs");

/** `npm start`'s own script as a child process; resolves with its exit code and output. */
function npmStart(env: Record<string, string | undefined>): Promise<{ code: number | null; out: string }> {
  return new Promise((res) => {
    const child = spawn(process.execPath, [START], {
      env: { ...process.env, GROVE_PORT: "0", GROVE_HOST: "127.0.0.1", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (out += d.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), 120_000);
    child.on("exit", (code) => {
      clearTimeout(timer);
      res({ code, out });
    });
  });
}

describe("LIVE-1 one server per GROVE_HOME and per runner id", () => {
  let first: ChildServer | undefined;
  let inproc: TestServer | undefined;
  let repo: TestRepo | undefined;
  const dirs: string[] = [];
  afterEach(async () => {
    if (first && first.child.exitCode === null) {
      first.child.kill("SIGTERM");
      await first.exited;
    }
    first = undefined;
    await inproc?.close();
    inproc = undefined;
    await repo?.cleanup();
    repo = undefined;
    for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
  });

  it("LIVE-1 a second `npm start` on a home whose server runs a turn exits 1 with its pid and URL, touching nothing; the turn finishes and writes its file", async () => {
    const home = await tempDir("grove-home-");
    dirs.push(home);
    first = await spawnServer({ GROVE_HOME: home });
    const api = apiClient(first.url);
    repo = await makeRepo({ name: "live1" });
    const r = await api("POST", "/repositories", { path: repo.path });
    const t = await api("POST", "/tasks", { title: "Long turn", repositories: [{ repositoryId: r.body.id }] });
    const s = await api("POST", `/tasks/${t.body.id}/sessions`, { prompt: "sleep 3000\nwrite done.txt finished" });
    expect(s.status).toBe(201);
    await waitForSession(api, s.body.id, ["running"]);
    const before = readdirSync(home).sort();
    const log = readFileSync(join(home, "logs", "server.log"), "utf8");

    const second = await npmStart({ GROVE_HOME: home });
    expect(second.code).toBe(1);
    expect(second.out).toContain(`error: grove_already_running: pid ${first.child.pid} serves this home at ${first.url}`);
    expect(second.out).not.toContain("listening on");

    const done = await waitForSession(api, s.body.id, ["waiting_for_input", "failed"], 60_000);
    expect(done.state).toBe("waiting_for_input");
    expect(done.lastError).toBeNull();
    const ws = (await api("GET", `/sessions/${s.body.id}/workspace`)).body;
    expect(readFileSync(join(ws.repositories[0].worktreePath, "done.txt"), "utf8")).toBe("finished");
    expect(readdirSync(home).sort()).toEqual(before);
    // The second process wrote nothing to the home's log (its refusal went to stderr only).
    expect(readFileSync(join(home, "logs", "server.log"), "utf8").startsWith(log)).toBe(true);
    expect(existsSync(join(home, "server.lock"))).toBe(false);
  });

  it("LIVE-1 after the first server stops (or dies), the home starts again at once", async () => {
    const home = await tempDir("grove-home-");
    dirs.push(home);
    first = await spawnServer({ GROVE_HOME: home });
    first.child.kill("SIGKILL");
    await first.exited;
    first = await spawnServer({ GROVE_HOME: home });
    expect((await apiClient(first.url)("GET", "/health")).status).toBe(200);
  });

  it("LIVE-1 PostgreSQL: a second process with the same runner id (another home) refuses the same way; another id starts", async () => {
    const db = await freshDatabase("postgres");
    dirs.push(db.home);
    inproc = await startTestServer("postgres", db, { GROVE_RUNNER_ID: "runner_same" });
    const otherHome = await tempDir("grove-home-");
    dirs.push(otherHome);
    const env = { GROVE_HOME: otherHome, GROVE_DATABASE_URL: db.databaseUrl, GROVE_RUNNER_ID: "runner_same" };
    const second = await npmStart(env);
    expect(second.code).toBe(1);
    expect(second.out).toContain(`error: grove_already_running: pid ${process.pid}`);
    expect(second.out).toContain(`serves runner runner_same at ${inproc.url}`);
    const runners = (await inproc.api("GET", "/runners")).body as { id: string }[];
    expect(runners.map((x) => x.id)).toEqual(["runner_same"]);
    first = await spawnServer({ ...env, GROVE_RUNNER_ID: "runner_other" });
    expect((await apiClient(first.url)("GET", "/health")).body.runnerId).toBe("runner_other");
    // The child first: the in-process server's close drops the database.
    first.child.kill("SIGTERM");
    await first.exited;
    first = undefined;
  });
});
