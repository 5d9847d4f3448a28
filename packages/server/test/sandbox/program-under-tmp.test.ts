import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { mountPlan, programRoots } from "../../src/sandbox/mount-plan.js";

const bwrap = (() => {
  try {
    execFileSync("/usr/bin/bwrap", ["--version"]);
    return "/usr/bin/bwrap";
  } catch {
    return undefined;
  }
})();

/**
 * SBX-1: a Grove checkout in a temporary directory (what `git clone` into `mktemp -d` gives)
 * keeps working confined: the private `/tmp` would hide the agent's own program, so its install
 * root is bound back read-only — before GROVE_HOME is emptied, so a home inside it stays hidden.
 */
describe.skipIf(!bwrap)("the agent's program under /tmp", () => {
  // /tmp itself, whatever TMPDIR says: the private /tmp is what this is about.
  const root = mkdtempSync(join("/tmp", "grove-prog-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("SBX-1 a program under /tmp runs in the sandbox; GROVE_HOME inside the same directory stays unreadable", () => {
    mkdirSync(join(root, "node_modules"), { recursive: true });
    mkdirSync(join(root, "packages", "dist"), { recursive: true });
    const prog = join(root, "packages", "dist", "agent.sh");
    writeFileSync(prog, '#!/bin/sh\necho program-ran\ncat "$1" 2>/dev/null && echo SECRET-VISIBLE\nexit 0\n');
    chmodSync(prog, 0o755);
    const home = join(root, ".grove-test", "home");
    mkdirSync(join(home, "agents", "a", "home"), { recursive: true });
    writeFileSync(join(home, "credential.key"), "top-secret");
    const work = join(root, "work");
    mkdirSync(work);

    expect(programRoots(["/usr/bin/node", prog])).toEqual([root]);
    const plan = mountPlan({
      groveHome: home,
      personHome: undefined,
      agentDir: join(home, "agents", "a"),
      agentHome: join(home, "agents", "a", "home"),
      cwd: work,
      worktrees: [],
      options: {},
      program: ["/bin/sh", prog],
    });
    const r = spawnSync(bwrap!, [...plan, "--", prog, join(home, "credential.key")], { encoding: "utf8" });
    expect(r.stderr).toBe("");
    expect(r.stdout).toContain("program-ran");
    expect(r.stdout).not.toContain("top-secret");
    expect(r.stdout).not.toContain("SECRET-VISIBLE");
  });
});
