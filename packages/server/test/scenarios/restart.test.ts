import { readFileSync, readdirSync, readlinkSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DATABASES, freshDatabase } from "../fixture/db.js";
import { gitSync, makeRepo } from "../fixture/git.js";
import { apiClient, spawnServer, waitFor, waitForSession, type ChildServer } from "../fixture/server.js";

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe.each(DATABASES)("restart (%s)", (kind) => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
  });

  it("SES-6 CHG-4 SEC-4: kill -9 mid-turn, restart → waiting_for_input, same workspace and Changes, resume via session/load in the same cwd", async () => {
    const db = await freshDatabase(kind);
    cleanups.push(async () => {
      await db.drop();
      await rm(db.home, { recursive: true, force: true });
    });
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
    const repo = await makeRepo();
    cleanups.push(repo.cleanup);
    const r = await api("POST", "/repositories", { path: repo.path });
    const t = await api("POST", "/tasks", { title: "Survive a crash", repositories: [{ repositoryId: r.body.id }] });
    const s = await api("POST", `/tasks/${t.body.id}/sessions`, {
      prompt: "write kept.txt committed\ncommit keep this\nwrite wip.txt not yet committed\nsay sleeping\nsleep 60000\nsay never",
    });
    expect(s.status).toBe(201);
    const sid = s.body.id as string;
    const before = (await api("GET", `/sessions/${sid}/workspace`)).body;
    await waitFor(async () => {
      const m = (await api("GET", `/sessions/${sid}/messages`)).body as { role: string; text: string }[];
      return m.some((x) => x.role === "agent" && x.text.includes("sleeping"));
    }, "the agent to reach its sleep");
    const running = (await api("GET", `/sessions/${sid}`)).body;
    expect(running.state).toBe("running");

    server.child.kill("SIGKILL");
    await server.exited;

    server = await spawnIt();
    api = apiClient(server.url);
    const after = await waitForSession(api, sid, ["waiting_for_input"], 5000);
    expect(after.lastError).toBeNull();
    const ws = (await api("GET", `/sessions/${sid}/workspace`)).body;
    expect(ws).toEqual(before);
    const changes = (await api("GET", `/tasks/${t.body.id}/changes`)).body;
    const paths = changes.repositories[0].files.map((f: { path: string }) => f.path).sort();
    expect(paths).toEqual(["kept.txt", "wip.txt"]);
    expect(changes.repositories[0].worktreePath).toBe(before.workspacePath);

    const p = await api("POST", `/sessions/${sid}/prompt`, { prompt: "say hello again" });
    expect(p.status).toBe(202);
    await waitForSession(api, sid, ["waiting_for_input"]);
    const msgs = (await api("GET", `/sessions/${sid}/messages`)).body as { role: string; text: string }[];
    expect(msgs.filter((m) => m.role === "agent").map((m) => m.text).join("\n")).toContain("hello again");
    const log = readFileSync(join(db.home, "logs", `${sid}.acp.jsonl`), "utf8").trim().split("\n").map((l) => JSON.parse(l));
    const load = log.find((f) => f.dir === "out" && f.msg?.method === "session/load");
    expect(load?.msg.params.cwd).toBe(before.workspacePath);
    expect(load?.msg.params.sessionId).toBeTruthy();
    expect(gitSync(before.workspacePath, "log", "-1", "--format=%s").trim()).toBe("keep this");
  });

  it("SES-6: agent processes left by a killed server are stopped at start-up", async () => {
    const db = await freshDatabase(kind);
    cleanups.push(async () => {
      await db.drop();
      await rm(db.home, { recursive: true, force: true });
    });
    const env = { GROVE_HOME: db.home, GROVE_DATABASE_URL: db.databaseUrl };
    const first = await spawnServer(env);
    const api = apiClient(first.url);
    const repo = await makeRepo();
    cleanups.push(repo.cleanup);
    const r = await api("POST", "/repositories", { path: repo.path });
    const t = await api("POST", "/tasks", { title: "orphans", repositories: [{ repositoryId: r.body.id }] });
    const s = await api("POST", `/tasks/${t.body.id}/sessions`, {});
    expect(s.body.state).toBe("waiting_for_input");
    // The agent's pid: the only child process of the server whose cwd is the worktree.
    const ws = (await api("GET", `/sessions/${s.body.id}/workspace`)).body;
    const pid = await waitFor(() => findProcessWithCwd(ws.workspacePath), "agent process");
    first.child.kill("SIGKILL");
    await first.exited;
    // stdin of the orphan closed with the server; it may already be gone. Restart must not leave it alive.
    const second = await spawnServer(env);
    cleanups.push(async () => {
      second.child.kill("SIGKILL");
      await second.exited;
    });
    await waitFor(() => !alive(pid), `orphan agent ${pid} to be stopped`, 10_000);
  });
});

function findProcessWithCwd(dir: string): number | undefined {
  for (const p of readdirSync("/proc")) {
    if (!/^\d+$/.test(p)) continue;
    try {
      if (readlinkSync(`/proc/${p}/cwd`) === dir) return Number(p);
    } catch {
      // gone or not ours
    }
  }
  return undefined;
}
