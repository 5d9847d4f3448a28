import { readFileSync, readdirSync, readlinkSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DATABASES, freshDatabase } from "../fixture/db.js";
import { makeRepo } from "../fixture/git.js";
import { apiClient, spawnServer, waitFor } from "../fixture/server.js";

function processesIn(dir: string): number[] {
  const out: number[] = [];
  for (const p of readdirSync("/proc")) {
    if (!/^\d+$/.test(p)) continue;
    try {
      if (readlinkSync(`/proc/${p}/cwd`) === dir) out.push(Number(p));
    } catch {
      // gone or not ours
    }
  }
  return out;
}

describe.each(DATABASES)("SEC-1 RR-2 children never inherit the server's secrets (%s)", (kind) => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
  });

  it("SEC-1: agents and setup scripts run without GROVE_AUTH_TOKEN or GROVE_DATABASE_URL", async () => {
    const db = await freshDatabase(kind);
    cleanups.push(async () => {
      await db.drop();
      await rm(db.home, { recursive: true, force: true });
    });
    const token = `tok-${Math.random().toString(36).slice(2)}-secret`;
    const server = await spawnServer({ GROVE_HOME: db.home, GROVE_DATABASE_URL: db.databaseUrl, GROVE_AUTH_TOKEN: token });
    cleanups.push(async () => {
      server.child.kill("SIGKILL");
      await server.exited;
    });
    const api = apiClient(server.url, token);
    const repo = await makeRepo();
    cleanups.push(repo.cleanup);
    const r = await api("POST", "/repositories", { path: repo.path, setupScript: "env > setup-env.txt" });
    expect(r.status).toBe(201);
    const t = await api("POST", "/tasks", { title: "Secrets", repositories: [{ repositoryId: r.body.id }] });
    const s = await api("POST", `/tasks/${t.body.id}/sessions`, {});
    expect(s.body.state).toBe("waiting_for_input");
    const ws = (await api("GET", `/sessions/${s.body.id}/workspace`)).body;
    const pids = await waitFor(() => {
      const p = processesIn(ws.workspacePath);
      return p.length > 0 ? p : undefined;
    }, "the agent process");
    for (const pid of pids) {
      const environ = readFileSync(`/proc/${pid}/environ`, "utf8");
      expect(environ).toContain("GROVE_SCRIPTED_STATE_DIR=");
      expect(environ).not.toContain(token);
      expect(environ).not.toContain("GROVE_AUTH_TOKEN");
      expect(environ).not.toContain("GROVE_DATABASE_URL");
    }
    const setupEnv = readFileSync(join(ws.workspacePath, "setup-env.txt"), "utf8");
    expect(setupEnv).toContain("PATH=");
    expect(setupEnv).not.toContain(token);
    expect(setupEnv).not.toContain("GROVE_DATABASE_URL");
  });
});
