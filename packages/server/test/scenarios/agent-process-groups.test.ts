import { spawn } from "node:child_process";
import { existsSync, readFileSync, readdirSync, readlinkSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { scriptedAgentCommand } from "../../src/agents/profiles.js";
import { isAlive, isSameProcess, readStartTime } from "../../src/agents/process-info.js";
import { openStore } from "../../src/store/open.js";
import { ONE_DATABASE, freshDatabase } from "../fixture/db.js";
import { makeRepo } from "../fixture/git.js";
import { apiClient, spawnServer, startTestServer, waitFor, waitForSession, type ChildServer } from "../fixture/server.js";
import { waitForJob } from "../lifecycle/helpers.js";
import { cleanupsAfterEach } from "../fixture/cleanups.js";

interface Proc {
  pid: number;
  pgrp: number;
  startTime: string;
  comm: string;
}

function stat(pid: number): Proc | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    const f = text
      .slice(text.lastIndexOf(")") + 1)
      .trim()
      .split(/\s+/);
    if (f[0] === "Z") return null;
    return { pid, pgrp: Number(f[2]), startTime: f[19]!, comm: text.slice(text.indexOf("(") + 1, text.lastIndexOf(")")) };
  } catch {
    return null;
  }
}

/** Live processes whose cwd is `dir` or below it: what still runs in a task's worktree. */
function processesUnder(dir: string): number[] {
  const out: number[] = [];
  for (const p of readdirSync("/proc")) {
    if (!/^\d+$/.test(p)) continue;
    try {
      const cwd = readlinkSync(`/proc/${p}/cwd`);
      if ((cwd === dir || cwd.startsWith(`${dir}/`)) && stat(Number(p))) out.push(Number(p));
    } catch {
      // gone or not ours
    }
  }
  return out;
}

/** The `sleep 900` an agent of the `spawner` profile started in its workspace, as (pid, start time). */
async function spawnedSleep(workspace: string): Promise<Proc> {
  return waitFor(
    () =>
      processesUnder(workspace)
        .map(stat)
        .find((p): p is Proc => p?.comm === "sleep"),
    `the agent's sleep in ${workspace}`,
  );
}

/**
 * An agents.json profile whose agent starts a long-lived child first, like a tool call would.
 * Unconfined on purpose: a sandboxed agent's processes die with the server at once
 * (`--die-with-parent`, test/sandbox/sandbox-processes.test.ts); recovery's reaping is what
 * holds for an agent whose profile opts out of the sandbox.
 */
function writeSpawnerProfile(home: string): void {
  const scripted = scriptedAgentCommand();
  writeFileSync(
    join(home, "agents.json"),
    JSON.stringify({
      agents: [
        {
          name: "spawner",
          command: "sh",
          args: ["-c", 'sleep 900 & exec "$0" "$@"', scripted.command, ...scripted.args],
          env: { GROVE_SCRIPTED_STATE_DIR: join(home, "agents", "spawner") },
          permissionPolicy: "auto_approve",
          sandbox: "off",
        },
      ],
    }),
  );
}

/** An unrelated process (its own group, like any detached program) that must survive everything. */
async function stranger(cleanups: (() => Promise<unknown>)[], cwd?: string): Promise<{ pid: number; startTime: string }> {
  const child = spawn("sleep", ["900"], { detached: true, stdio: "ignore", ...(cwd ? { cwd } : {}) });
  await new Promise((r) => child.once("spawn", r));
  cleanups.push(async () => child.kill("SIGKILL"));
  return { pid: child.pid!, startTime: readStartTime(child.pid!)! };
}

// 20 rounds (one task, its agent and the agent's child each) in two crash cycles: a restart is
// the slow part, and what recovery must do is the same for each round of a cycle.
const CYCLES = 2;
const TASKS_PER_CYCLE = 10;

describe.each(ONE_DATABASE)("SEC-7 every process an agent starts dies with its task (%s)", (kind) => {
  const cleanups = cleanupsAfterEach();

  /** A server on this database with a task on a fresh repository, both removed after the test. */
  async function serverWithTask(title: string) {
    const srv = await startTestServer(kind);
    cleanups.push(() => srv.close());
    const repo = await makeRepo();
    cleanups.push(repo.cleanup);
    const r = await srv.api("POST", "/repositories", { path: repo.path });
    const t = await srv.api("POST", "/tasks", { title, repositories: [{ repositoryId: r.body.id }] });
    return { srv, deps: srv.server.deps, t };
  }

  it(`SEC-7: an agent's long-lived child dies after kill -9 + restart and after archive; ${CYCLES * TASKS_PER_CYCLE} rounds, 0 survivors; a reused pid is never signalled`, {
    timeout: 240_000,
  }, async () => {
    const db = await freshDatabase(kind);
    cleanups.push(async () => {
      await db.drop();
      await rm(db.home, { recursive: true, force: true });
    });
    writeSpawnerProfile(db.home);
    const env = { GROVE_HOME: db.home, GROVE_DATABASE_URL: db.databaseUrl };
    const spawnIt = async (): Promise<ChildServer> => {
      const s = await spawnServer(env);
      cleanups.push(async () => {
        s.child.kill("SIGKILL");
        await s.exited;
      });
      return s;
    };
    let server = await spawnIt();
    let api = apiClient(server.url);
    const runnerId = (await api("GET", "/health")).body.runnerId as string;
    const repo = await makeRepo();
    cleanups.push(repo.cleanup);
    const r = await api("POST", "/repositories", { path: repo.path });
    // An unrelated process holding a pid that a record will claim with another start time (the
    // pid was "reused"): recovery, archive and shutdown must never signal it.
    const bystander = await stranger(cleanups);

    let survivors = 0;
    for (let cycle = 0; cycle < CYCLES; cycle++) {
      const rounds = await Promise.all(
        Array.from({ length: TASKS_PER_CYCLE }, async (_, i) => {
          const t = await api("POST", "/tasks", { title: `groups ${cycle}-${i}`, repositories: [{ repositoryId: r.body.id }] });
          const s = await api("POST", `/tasks/${t.body.id}/sessions`, { agent: "spawner" });
          expect(s.status, JSON.stringify(s.body)).toBe(201);
          expect(s.body.state).toBe("waiting_for_input");
          const ws = (await api("GET", `/sessions/${s.body.id}/workspace`)).body;
          return {
            taskId: t.body.id as string,
            sessionId: s.body.id as string,
            workspace: ws.workspacePath as string,
            sleep: await spawnedSleep(ws.workspacePath),
          };
        }),
      );
      server.child.kill("SIGKILL");
      await server.exited;
      // The crash left the tools running (that is what recovery must clean up).
      for (const x of rounds) expect(isSameProcess(x.sleep.pid, x.sleep.startTime)).toBe(true);
      const store = await openStore({ home: db.home, ...(db.databaseUrl ? { databaseUrl: db.databaseUrl } : {}) });
      await store.upsertAgentProcess({
        sessionId: `ses_reused_${cycle}`,
        runnerId,
        pid: bystander.pid,
        startTime: String(BigInt(bystander.startTime) - 1n - BigInt(cycle)),
        createdAt: new Date().toISOString(),
      });
      await store.close();
      server = await spawnIt();
      api = apiClient(server.url);
      for (const x of rounds) {
        const alive = processesUnder(x.workspace);
        if (alive.length > 0 || isSameProcess(x.sleep.pid, x.sleep.startTime)) survivors += 1;
      }
      expect(survivors, "survivors after kill -9 and restart").toBe(0);
      expect(isAlive(bystander.pid)).toBe(true);

      // Each session resumes (a new agent with a new child), then its task is archived.
      await Promise.all(
        rounds.map(async (x) => {
          const res = await api("POST", `/sessions/${x.sessionId}/resume`);
          expect(res.status).toBe(202);
          await waitForSession(api, x.sessionId, ["waiting_for_input"]);
          const again = await spawnedSleep(x.workspace);
          const a = await api("POST", `/tasks/${x.taskId}/archive`);
          expect(a.status).toBe(202);
          const job = await waitForJob(api, x.taskId, a.body.jobId, ["succeeded", "failed", "retry_wait"]);
          expect(job.state, job.lastError).toBe("succeeded");
          if (processesUnder(x.workspace).length > 0 || isSameProcess(again.pid, again.startTime)) survivors += 1;
          expect(existsSync(x.workspace)).toBe(false);
        }),
      );
      expect(survivors, "survivors after archive").toBe(0);
      expect(isAlive(bystander.pid)).toBe(true);
    }
  });

  it("SEC-7 LC-3: archive stops a recorded group whose leader is dead, waits for it before removing the worktree, and never signals a reused pid", async () => {
    const { srv, deps, t } = await serverWithTask("orphans");
    const s1 = await srv.api("POST", `/tasks/${t.body.id}/sessions`, {});
    const s2 = await srv.api("POST", `/tasks/${t.body.id}/sessions`, {});
    const ws = (await srv.api("GET", `/sessions/${s1.body.id}/workspace`)).body.workspacePath as string;
    // A previous server's agent: its leader is gone, the tool it started still runs in the worktree.
    const leader = spawn("sh", ["-c", "sleep 900 &\nread x"], { cwd: ws, detached: true, stdio: ["pipe", "ignore", "ignore"] });
    await new Promise((res) => leader.once("spawn", res));
    cleanups.push(async () => process.kill(-leader.pid!, "SIGKILL"));
    const leaderStart = readStartTime(leader.pid!)!;
    const orphan = await spawnedSleep(ws);
    leader.stdin!.end();
    await new Promise((res) => leader.once("exit", res));
    expect(isAlive(leader.pid!)).toBe(false);
    const now = new Date().toISOString();
    await deps.store.upsertAgentProcess({ sessionId: s1.body.id, runnerId: deps.runnerId, pid: leader.pid!, startTime: leaderStart, createdAt: now });
    const bystander = await stranger(cleanups);
    await deps.store.upsertAgentProcess({
      sessionId: s2.body.id,
      runnerId: deps.runnerId,
      pid: bystander.pid,
      startTime: String(BigInt(bystander.startTime) - 7n),
      createdAt: now,
    });

    const a = await srv.api("POST", `/tasks/${t.body.id}/archive`);
    const job = await waitForJob(srv.api, t.body.id, a.body.jobId, ["succeeded", "failed", "retry_wait"]);
    expect(job.state, job.lastError).toBe("succeeded");
    expect(isSameProcess(orphan.pid, orphan.startTime)).toBe(false);
    expect(processesUnder(ws)).toEqual([]);
    expect(existsSync(ws)).toBe(false);
    expect(isAlive(bystander.pid)).toBe(true);
  });

  it("SEC-7: an agent's exit deletes its own process record only, never a newer one its session got meanwhile", async () => {
    const { srv, deps, t } = await serverWithTask("exit records");
    const replaced = (await srv.api("POST", `/tasks/${t.body.id}/sessions`, {})).body.id as string;
    const witness = (await srv.api("POST", `/tasks/${t.body.id}/sessions`, {})).body.id as string;
    const records = async () => new Map((await deps.store.listAgentProcessesOfSessions([replaced, witness])).map((p) => [p.sessionId, p]));
    expect([...(await records()).keys()].sort()).toEqual([replaced, witness].sort());
    // The session's record now names another process (a newer agent of the session), then its
    // first agent exits; the witness's agent exits too, and its own record goes.
    const other = spawn("sleep", ["900"], { detached: true, stdio: "ignore" });
    await new Promise((res) => other.once("spawn", res));
    cleanups.push(async () => process.kill(-other.pid!, "SIGKILL"));
    const newer = { sessionId: replaced, runnerId: deps.runnerId, pid: other.pid!, startTime: readStartTime(other.pid!)!, createdAt: new Date().toISOString() };
    await deps.store.upsertAgentProcess(newer);
    await Promise.all([deps.agents.stop(replaced), deps.agents.stop(witness)]);
    await waitFor(async () => !(await records()).has(witness), "the witness's record deleted on its exit");
    expect((await records()).get(replaced)).toMatchObject({ pid: other.pid, startTime: newer.startTime });
  });

  it("SEC-7 SES-7: session delete and shutdown stop the whole recorded group, also when its leader is dead", async () => {
    const { srv, deps, t } = await serverWithTask("delete and shutdown");
    const s1 = await srv.api("POST", `/tasks/${t.body.id}/sessions`, {});
    const s2 = await srv.api("POST", `/tasks/${t.body.id}/sessions`, {});
    const ws = (await srv.api("GET", `/sessions/${s1.body.id}/workspace`)).body.workspacePath as string;
    const orphanOf = async (sessionId: string) => {
      await srv.server.deps.agents.stop(sessionId);
      const leader = spawn("sh", ["-c", "sleep 900 &\nread x"], { cwd: ws, detached: true, stdio: ["pipe", "ignore", "ignore"] });
      await new Promise((res) => leader.once("spawn", res));
      cleanups.push(async () => process.kill(-leader.pid!, "SIGKILL"));
      const leaderStart = readStartTime(leader.pid!)!;
      const child = await waitFor(
        () =>
          processesUnder(ws)
            .map(stat)
            .find((p): p is Proc => p?.comm === "sleep" && p.pgrp === leader.pid),
        "the orphan's child",
      );
      leader.stdin!.end();
      await new Promise((res) => leader.once("exit", res));
      await deps.store.upsertAgentProcess({
        sessionId,
        runnerId: deps.runnerId,
        pid: leader.pid!,
        startTime: leaderStart,
        createdAt: new Date().toISOString(),
      });
      return child;
    };
    const deleted = await orphanOf(s1.body.id);
    const del = await srv.api("DELETE", `/sessions/${s1.body.id}`);
    expect(del.status).toBe(204);
    expect(isSameProcess(deleted.pid, deleted.startTime)).toBe(false);

    const atShutdown = await orphanOf(s2.body.id);
    await srv.stop();
    expect(isSameProcess(atShutdown.pid, atShutdown.startTime)).toBe(false);
    expect(processesUnder(ws)).toEqual([]);
  });
});
