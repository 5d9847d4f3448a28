import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { confinedStartOf } from "../../src/agents/bridges.js";
import { builtInProfiles } from "../../src/agents/profiles.js";
import { mountPlan } from "../../src/sandbox/mount-plan.js";

const bwrap = (() => {
  try {
    execFileSync("/usr/bin/bwrap", ["--version"]);
    return "/usr/bin/bwrap";
  } catch {
    return undefined;
  }
})();

/**
 * MCP-1 SBX-1: Grove trusts a confined Gemini CLI's workspace so that it connects the `grove`
 * MCP server; the repository's own `.gemini/` (project settings: hooks, MCP servers, tool
 * commands) is covered by an empty directory, so that trust lets in nothing the repository brings.
 */
describe.skipIf(!bwrap)("a bridge's hiddenInWorkspace directories", () => {
  const root = mkdtempSync(join(tmpdir(), "grove-hidden-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("MCP-1 the built-in gemini profile, confined, trusts its workspace and hides the worktree's .gemini/: empty inside, the rest of the worktree visible, nothing written there reaches the repository", () => {
    const start = confinedStartOf(builtInProfiles({ home: root }).find((p) => p.name === "gemini")!);
    expect(start.env).toEqual({ GEMINI_CLI_TRUST_WORKSPACE: "true" });
    expect(start.hiddenInWorkspace).toEqual([".gemini"]);

    const home = join(root, "home");
    mkdirSync(join(home, "agents", "gemini", "home"), { recursive: true });
    const wt = join(root, "wt");
    mkdirSync(join(wt, ".gemini"), { recursive: true });
    writeFileSync(join(wt, ".gemini", "settings.json"), '{"hooks":{}}');
    writeFileSync(join(wt, "README.md"), "visible");
    const plan = mountPlan({
      groveHome: home,
      personHome: undefined,
      agentDir: join(home, "agents", "gemini"),
      agentHome: join(home, "agents", "gemini", "home"),
      cwd: wt,
      worktrees: [],
      options: { writable: [wt] },
      hiddenInWorkspace: start.hiddenInWorkspace,
    });
    const script = `ls -A ${wt}/.gemini; echo "[listed]"; cat ${wt}/README.md; echo; echo planted > ${wt}/.gemini/settings.json && echo wrote`;
    const r = spawnSync(bwrap!, [...plan, "--", "/bin/sh", "-c", script], { encoding: "utf8" });
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe("[listed]\nvisible\nwrote\n");
    expect(readFileSync(join(wt, ".gemini", "settings.json"), "utf8")).toBe('{"hooks":{}}');

    // A workspace without the directory gets none made.
    rmSync(join(wt, ".gemini"), { recursive: true });
    const r2 = spawnSync(
      bwrap!,
      [
        ...mountPlan({
          groveHome: home,
          personHome: undefined,
          agentDir: join(home, "agents", "gemini"),
          agentHome: join(home, "agents", "gemini", "home"),
          cwd: wt,
          worktrees: [],
          options: { writable: [wt] },
          hiddenInWorkspace: [".gemini"],
        }),
        "--",
        "/bin/true",
      ],
      { encoding: "utf8" },
    );
    expect(r2.status, r2.stderr).toBe(0);
    expect(existsSync(join(wt, ".gemini"))).toBe(false);
  });
});
