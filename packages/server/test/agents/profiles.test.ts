import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { AgentProfile } from "@grove/protocol";
import { describe, expect, it } from "vitest";
import { builtInProfiles, DEFAULT_AGENT, SCRIPTED_AGENT_BUNDLE, scriptedAgentCommand, toPublicProfile } from "../../src/agents/profiles.js";

describe("agent profiles (SES-9)", () => {
  it("SES-9.10 AG-3 built-in profiles: scripted is the default, real agents are pinned bridges installed under GROVE_HOME/agents", () => {
    const ps = builtInProfiles({ home: "/srv/grove" });
    expect(ps.map((p) => p.name)).toEqual(["scripted", "claude", "codex", "gemini", "opencode"]);
    expect(DEFAULT_AGENT).toBe("scripted");
    expect(ps[0]).toMatchObject({ env: { GROVE_SCRIPTED_STATE_DIR: "/srv/grove/agents/scripted" }, permissionPolicy: "auto_approve", builtIn: true });
    expect(ps[1]).toMatchObject({
      install: { package: "@agentclientprotocol/claude-agent-acp", version: "0.101.0" },
      env: { IS_SANDBOX: "1" },
      permissionPolicy: "ask",
      policyModes: { ask: "default", auto_approve: "acceptEdits" },
    });
    expect(ps.find((p) => p.name === "gemini")).toMatchObject({
      install: { package: "@google/gemini-cli", version: "0.61.0", args: ["--acp"] },
      policyModes: { ask: "default" },
    });
    expect(ps.find((p) => p.name === "opencode")!.install).toEqual({ package: "opencode-ai", version: "1.18.33", args: ["acp"] });
    expect(ps.find((p) => p.name === "codex")!.install).toMatchObject({ package: "@zed-industries/codex-acp", version: "0.16.0" });
    for (const p of ps.slice(1)) expect(p.command).not.toBe("npx");
  });

  it("SEC-7 built-in real agents inherit their vendor's keys; the scripted agent inherits nothing beyond the base allow-list", () => {
    const ps = builtInProfiles({ home: "/srv/grove" });
    expect(ps[0]!.inheritEnv ?? []).toEqual([]);
    expect(ps.find((p) => p.name === "claude")!.inheritEnv).toContain("ANTHROPIC_API_KEY");
    expect(ps.find((p) => p.name === "codex")!.inheritEnv).toContain("OPENAI_API_KEY");
    expect(ps.find((p) => p.name === "gemini")!.inheritEnv).toContain("GEMINI_API_KEY");
    for (const p of ps) expect(p.inheritEnv ?? []).not.toContain("GITHUB_TOKEN");
    expect(toPublicProfile(ps[1]!).inheritEnv).toContain("ANTHROPIC_API_KEY");
  });

  it("SES-9.10 the public view lists env names, never values", () => {
    const pub = toPublicProfile({ name: "x", command: "c", args: ["a"], env: { TOKEN: "s3cret", A: "1" }, permissionPolicy: "ask", builtIn: false });
    expect(AgentProfile.parse(pub)).toEqual({
      name: "x",
      command: "c",
      args: ["a"],
      env: ["A", "TOKEN"],
      permissionPolicy: "ask",
      builtIn: false,
      inheritEnv: [],
    });
    expect(JSON.stringify(pub)).not.toContain("s3cret");
  });

  it("SES-9.10 without a fresh bundle, scriptedAgentCommand runs the TypeScript through tsx, same paths under plain node as under vitest", () => {
    const missing = join(tmpdir(), "grove-no-such-bundle.mjs");
    const here = scriptedAgentCommand(missing);
    expect(here.command).toBe(process.execPath);
    expect(here.args[0]).toBe("--import");
    expect(here.args[1]).toMatch(/^\/.*tsx\/dist\/loader\.mjs$/);
    expect(here.args[2]).toBe(fileURLToPath(new URL("../../src/agents/scripted-agent.ts", import.meta.url)));
    const profilesUrl = new URL("../../src/agents/profiles.ts", import.meta.url).href;
    const out = execFileSync(
      process.execPath,
      [
        "--import",
        here.args[1]!,
        "--input-type=module",
        "-e",
        `const m = await import(${JSON.stringify(profilesUrl)}); process.stdout.write(JSON.stringify(m.scriptedAgentCommand(${JSON.stringify(missing)})))`,
      ],
      { cwd: "/", encoding: "utf8" },
    );
    expect(JSON.parse(out)).toEqual(here);
  });

  it("SES-9.11 a bundle newer than every scripted-agent source is used; a stale one is not", () => {
    const dir = mkdtempSync(join(tmpdir(), "grove-bundle-"));
    try {
      const bundle = join(dir, "scripted-agent.mjs");
      writeFileSync(bundle, "");
      expect(scriptedAgentCommand(bundle)).toEqual({ command: process.execPath, args: [bundle] });
      utimesSync(bundle, new Date(0), new Date(0));
      expect(scriptedAgentCommand(bundle).args[0]).toBe("--import");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("SES-9.11 the built bundle speaks ACP (npm test builds it first)", () => {
    expect(existsSync(SCRIPTED_AGENT_BUNDLE), "run `npm run build` first").toBe(true);
    const out = execFileSync(process.execPath, [SCRIPTED_AGENT_BUNDLE], {
      input: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } }) + "\n",
      encoding: "utf8",
      timeout: 20_000,
    });
    expect(JSON.parse(out.trim().split("\n")[0]!).result.agentCapabilities.loadSession).toBe(true);
  });
});
