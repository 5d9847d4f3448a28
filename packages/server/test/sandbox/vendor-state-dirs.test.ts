import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { builtInProfiles } from "../../src/agents/profiles.js";
import { vendorStateDirs } from "../../src/orchestrator/sessions/sandbox-launch.js";

describe("SBX-1 a vendor state dir the agent's environment names is writable in its sandbox, within limits", () => {
  const root = mkdtempSync(join(tmpdir(), "grove-state-dirs-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const dir = (...p: string[]) => {
    const d = join(root, ...p);
    mkdirSync(d, { recursive: true });
    return d;
  };
  const groveHome = dir("person", ".grove");
  const personHome = join(root, "person");
  const repoGit = dir("work", "repo", ".git");
  const codex = builtInProfiles({ home: groveHome }).find((p) => p.name === "codex")!;
  const scripted = builtInProfiles({ home: groveHome }).find((p) => p.name === "scripted")!;
  const dirsFor = (value: string, profile = codex) => vendorStateDirs(profile, { CODEX_HOME: value }, groveHome, personHome, [repoGit]);

  it("SBX-1: CODEX_HOME outside GROVE_HOME is bound; GROVE_HOME, a dir in it, the person's home, its ancestors, a dir holding a session's git dir, a missing or relative path are not; a profile with no bridge binds none", () => {
    const own = dir("person", ".codex");
    expect(dirsFor(own)).toEqual([own]);
    for (const refused of [
      groveHome,
      dir("person", ".grove", "agents", "codex"),
      personHome,
      root,
      "/",
      join(root, "work", "repo"),
      join(root, "missing"),
      "relative/dir",
    ]) {
      expect(dirsFor(refused), refused).toEqual([]);
    }
    expect(dirsFor(own, scripted)).toEqual([]);
  });
});
