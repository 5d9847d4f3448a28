import { chmodSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { scriptedAgentCommand } from "../../src/agents/profiles.js";
import { isAllowedByDefault } from "../../src/domain/child-env.js";
import { sandboxEnv } from "../../src/sandbox/launcher.js";
import { ONE_DATABASE, freshDatabase } from "../fixture/db.js";
import { makeRepo, tempDir } from "../fixture/git.js";
import { apiClient, spawnServer, waitFor } from "../fixture/server.js";
import { processesWithCwd } from "../agents/fixture.js";
import { cleanupsAfterEach } from "../fixture/cleanups.js";

/** `NAME=value` lines (or a NUL-separated /proc environ) → a map. */
function parseEnv(text: string, sep: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const entry of text.split(sep)) {
    const i = entry.indexOf("=");
    if (i > 0 && /^[A-Za-z_][A-Za-z0-9_]*$/.test(entry.slice(0, i))) out.set(entry.slice(0, i), entry.slice(i + 1));
  }
  return out;
}

const SECRETS = {
  GITHUB_TOKEN: "ghp-secret-value-1",
  AWS_SECRET_ACCESS_KEY: "aws-secret-value-2",
  GROVE_EXTRA_SETTING: "grove-extra-value-3",
  SOME_OTHER_VAR: "other-value-4",
};

describe.each(ONE_DATABASE)("SEC-7 children get an allow-listed environment (%s)", (kind) => {
  const cleanups = cleanupsAfterEach();

  it("SEC-7: agents, setup scripts and git hooks see none of GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY, GROVE_*; a profile's inheritEnv passes exactly those names", async () => {
    const db = await freshDatabase(kind);
    cleanups.push(async () => {
      await db.drop();
      await rm(db.home, { recursive: true, force: true });
    });
    const scripted = scriptedAgentCommand();
    const stateDir = join(db.home, "agents", "listed");
    writeFileSync(
      join(db.home, "agents.json"),
      JSON.stringify({
        agents: [
          {
            name: "listed",
            command: scripted.command,
            args: scripted.args,
            env: { GROVE_SCRIPTED_STATE_DIR: stateDir },
            permissionPolicy: "auto_approve",
            inheritEnv: ["GITHUB_TOKEN", "GROVE_EXTRA_SETTING"],
          },
        ],
      }),
    );
    const token = `tok-${Math.random().toString(36).slice(2)}-secret-token`;
    const serverEnv = { GROVE_HOME: db.home, GROVE_DATABASE_URL: db.databaseUrl, GROVE_AUTH_TOKEN: token, ...SECRETS };
    const server = await spawnServer(serverEnv);
    cleanups.push(async () => {
      server.child.kill("SIGKILL");
      await server.exited;
    });
    // What the server process itself was given (spawnServer adds its own GROVE_* on top of ours).
    const given = parseEnv(readFileSync(`/proc/${server.child.pid}/environ`, "utf8"), "\0");
    const api = apiClient(server.url, token);

    const out = await tempDir("grove-hook-out-");
    cleanups.push(() => rm(out, { recursive: true, force: true }));
    const repo = await makeRepo();
    cleanups.push(repo.cleanup);
    // A post-checkout hook of the repository runs inside `git worktree add` (Grove's git runner).
    const hooks = join(repo.path, ".git", "hooks");
    mkdirSync(hooks, { recursive: true });
    writeFileSync(join(hooks, "post-checkout"), `#!/bin/sh\nenv > "${out}/hook-$(basename "$PWD")-$$.txt"\n`);
    chmodSync(join(hooks, "post-checkout"), 0o755);
    const r = await api("POST", "/repositories", { path: repo.path, setupScript: `env > "${out}/setup-$(basename "$(dirname "$PWD")")-$$.txt"` });
    expect(r.status).toBe(201);

    const agentEnv = async (agent: string | undefined) => {
      const t = await api("POST", "/tasks", { title: `Env ${agent ?? "default"}`, repositories: [{ repositoryId: r.body.id }] });
      const s = await api("POST", `/tasks/${t.body.id}/sessions`, agent ? { agent } : {});
      expect(s.body.state).toBe("waiting_for_input");
      const ws = (await api("GET", `/sessions/${s.body.id}/workspace`)).body;
      const [pid] = await waitFor(() => {
        const p = processesWithCwd((d) => d === ws.workspacePath);
        return p.length > 0 ? p : undefined;
      }, "the agent process");
      return parseEnv(readFileSync(`/proc/${pid}/environ`, "utf8"), "\0");
    };

    // SBX-1/SBX-2: a confined agent's own HOME and tmp, the proxy variables, no ssh agent.
    const sandboxed = (name: string) => sandboxEnv(join(db.home, "agents", name, "home"));
    const base = [...given.keys()].filter(isAllowedByDefault).filter((k) => !(k in sandboxed("scripted")));
    const sandboxKeys = Object.entries(sandboxed("scripted"))
      .filter(([, v]) => v !== undefined)
      .map(([k]) => k);
    expect(base).toContain("PATH");

    // The default agent: the base allow-list of what the server had, plus its profile's env. Nothing else.
    const plain = await agentEnv(undefined);
    expect([...plain.keys()].sort()).toEqual([...base, ...sandboxKeys, "GROVE_SCRIPTED_STATE_DIR"].sort());
    for (const k of base) expect(plain.get(k)).toBe(given.get(k));
    expect(plain.get("HOME")).toBe(sandboxed("scripted").HOME);

    // inheritEnv passes exactly the listed names (GITHUB_TOKEN, GROVE_EXTRA_SETTING), not the others.
    const listed = await agentEnv("listed");
    expect([...listed.keys()].sort()).toEqual([...base, ...sandboxKeys, "GROVE_SCRIPTED_STATE_DIR", "GITHUB_TOKEN", "GROVE_EXTRA_SETTING"].sort());
    expect(listed.get("HOME")).toBe(sandboxed("listed").HOME);
    expect(listed.get("GITHUB_TOKEN")).toBe(SECRETS.GITHUB_TOKEN);
    expect(listed.get("GROVE_EXTRA_SETTING")).toBe(SECRETS.GROVE_EXTRA_SETTING);
    expect(listed.get("GROVE_SCRIPTED_STATE_DIR")).toBe(stateDir);

    // One setup script and one hook run per task (two tasks).
    const files = readdirSync(out);
    const setups = files.filter((f) => f.startsWith("setup-"));
    const hookRuns = files.filter((f) => f.startsWith("hook-"));
    expect(setups).toHaveLength(2);
    expect(hookRuns.length).toBeGreaterThanOrEqual(2);
    for (const f of [...setups, ...hookRuns]) {
      const text = readFileSync(join(out, f), "utf8");
      const env = parseEnv(text, "\n");
      // git puts its exec-path in front for hooks; the rest is the server's PATH.
      expect(env.get("PATH")?.endsWith(given.get("PATH")!), f).toBe(true);
      for (const v of [token, ...Object.values(SECRETS)]) expect(text, f).not.toContain(v);
      for (const k of Object.keys(SECRETS)) expect(env.has(k), `${f} has ${k}`).toBe(false);
      const grove = [...env.keys()].filter((k) => k.startsWith("GROVE_")).sort();
      // Only what Grove tells a setup script on purpose (WT-9); a hook gets nothing of Grove's.
      expect(grove, f).toEqual(f.startsWith("setup-") ? ["GROVE_SOURCE_PATH", "GROVE_TASK_ID", "GROVE_WORKTREE_PATH"] : []);
    }
  });
});
