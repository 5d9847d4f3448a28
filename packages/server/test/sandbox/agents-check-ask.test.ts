import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { askProblem } from "../../src/agents/bridges.js";
import { loadProfiles } from "../../src/agents/profile-config.js";
import { builtInProfiles, SCRIPTED_AGENT_BUNDLE } from "../../src/agents/profiles.js";
import { freshDatabase } from "../fixture/db.js";
import { runGrove } from "../cli/run-cli.js";
import { startTestServer } from "../fixture/server.js";
import { cleanupsAfterEach } from "../fixture/cleanups.js";

const CLAUDE_PKG = "@agentclientprotocol/claude-agent-acp";

describe("AG-2 grove agents check flags a profile whose agent would not ask under ask", () => {
  const cleanups = cleanupsAfterEach();

  it("AG-2: the built-ins ask; a Claude-bridge profile pinned to auto or bypassPermissions, or opencode without its permission setting, is flagged", async () => {
    const db = await freshDatabase("sqlite");
    cleanups.push(async () => {
      await db.drop();
      await rm(db.home, { recursive: true, force: true });
    });
    // Something that answers ACP `initialize` at a path inside a Claude-bridge install: what
    // `grove agents check` needs to start, while Grove knows the bridge by its package path.
    const fakeInstall = join(db.home, "fake", "node_modules", CLAUDE_PKG);
    mkdirSync(fakeInstall, { recursive: true });
    copyFileSync(SCRIPTED_AGENT_BUNDLE, join(fakeInstall, "index.mjs"));
    const bridge = join(fakeInstall, "index.mjs");
    const oc = join(db.home, "fake", "node_modules", "opencode-ai", "bin", "opencode");
    const agents = [
      { name: "my-claude", command: process.execPath, args: [bridge], permissionPolicy: "ask", sandbox: "off" },
      { name: "pinned-auto", command: process.execPath, args: [bridge], permissionPolicy: "ask", mode: "auto", sandbox: "off" },
      { name: "bypass", command: process.execPath, args: [bridge], permissionPolicy: "ask", policyModes: { ask: "bypassPermissions" }, sandbox: "off" },
      { name: "my-opencode", command: process.execPath, args: [oc, "acp"], permissionPolicy: "ask" },
      { name: "claude", env: { EXTRA: "1" } },
    ];
    writeFileSync(join(db.home, "agents.json"), JSON.stringify({ agents }));
    const profiles = loadProfiles(db.home, builtInProfiles({ home: db.home }));
    const byName = (n: string) => profiles.find((p) => p.name === n)!;
    for (const n of ["scripted", "claude", "codex", "gemini", "opencode", "my-claude"]) expect(askProblem(byName(n)), n).toBeUndefined();
    expect(askProblem(byName("pinned-auto"))).toMatch(/mode "auto", which never asks \(pinned by mode\)/);
    expect(askProblem(byName("bypass"))).toMatch(/"bypassPermissions", which never asks/);
    expect(askProblem(byName("my-opencode"))).toMatch(/never asks in the mode it starts in; set OPENCODE_PERMISSION/);

    const srv = await startTestServer("sqlite", db);
    cleanups.push(() => srv.close());
    const flagged = await runGrove(["agents", "check", "pinned-auto", "--server", srv.url]);
    expect(flagged.code, flagged.stderr).toBe(0);
    expect(flagged.stdout).toMatch(/^warning: permissionPolicy is "ask" but the agent runs in .*"auto", which never asks/m);
    const fine = await runGrove(["agents", "check", "my-claude", "--server", srv.url]);
    expect(fine.stdout).not.toContain("warning:");
    const ls = await runGrove(["agents", "ls", "--server", srv.url]);
    expect(ls.stdout).toMatch(/bypass .*\n\s+warning: .*bypassPermissions/);
    expect(ls.stdout).toMatch(/my-claude .*unconfined \(sandbox off\)/);
    const json = (await srv.api("GET", "/agents")).body;
    expect(json.find((a: any) => a.name === "my-opencode").askProblem).toContain("OPENCODE_PERMISSION");
    expect(json.find((a: any) => a.name === "claude").askProblem).toBeUndefined();
  });
});
