import { readFileSync, readdirSync, readlinkSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ONE_DATABASE, freshDatabase } from "../fixture/db.js";
import { makeRepo } from "../fixture/git.js";
import { apiClient, spawnServer, waitFor } from "../fixture/server.js";
import { cleanupsAfterEach } from "../fixture/cleanups.js";

/** The processes whose working directory is `dir`: argv and environment (a process gone meanwhile is left out). */
function processesIn(dir: string): { argv: string[]; environ: string }[] {
  const out: { argv: string[]; environ: string }[] = [];
  for (const p of readdirSync("/proc")) {
    if (!/^\d+$/.test(p)) continue;
    try {
      if (readlinkSync(`/proc/${p}/cwd`) !== dir) continue;
      out.push({ argv: readFileSync(`/proc/${p}/cmdline`, "utf8").split("\0"), environ: readFileSync(`/proc/${p}/environ`, "utf8") });
    } catch {
      // gone or not ours
    }
  }
  return out;
}

describe.each(ONE_DATABASE)("SEC-1 RR-2 children never inherit the server's secrets (%s)", (kind) => {
  const cleanups = cleanupsAfterEach();

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
    // The agent itself (node running the scripted agent; its sandbox's bwrap carries the same
    // path in its arguments), found among every process working in the workspace: besides the
    // agent's sandbox, Grove's own git (Changes) may be there for a moment. None carries a secret.
    const isAgent = (p: { argv: string[] }) => p.argv[0]?.endsWith("node") === true && p.argv.some((a) => /scripted-agent\.(mjs|ts)$/.test(a));
    const processes = await waitFor(() => {
      const found = processesIn(ws.workspacePath);
      return found.some(isAgent) ? found : undefined;
    }, "the agent process");
    for (const p of processes) {
      expect(p.environ).not.toContain(token);
      expect(p.environ).not.toContain("GROVE_AUTH_TOKEN");
      expect(p.environ).not.toContain("GROVE_DATABASE_URL");
    }
    for (const agent of processes.filter(isAgent)) expect(agent.environ).toContain("GROVE_SCRIPTED_STATE_DIR=");
    const setupEnv = readFileSync(join(ws.workspacePath, "setup-env.txt"), "utf8");
    expect(setupEnv).toContain("PATH=");
    expect(setupEnv).not.toContain(token);
    expect(setupEnv).not.toContain("GROVE_DATABASE_URL");
  });
});
