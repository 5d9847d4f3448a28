import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { AgentProfile } from "@grove/protocol";
import { describe, expect, it } from "vitest";
import { builtInProfiles, DEFAULT_AGENT, scriptedAgentCommand, toPublicProfile } from "../../src/agents/profiles.js";

describe("agent profiles (SES-9)", () => {
  it("SES-9.10 built-in profiles: scripted is the default, real agents run through npx", () => {
    const ps = builtInProfiles({ home: "/srv/grove" });
    expect(ps.map((p) => p.name)).toEqual(["scripted", "claude", "codex", "gemini", "opencode"]);
    expect(DEFAULT_AGENT).toBe("scripted");
    expect(ps[0]).toMatchObject({ env: { GROVE_SCRIPTED_STATE_DIR: "/srv/grove/agents/scripted" }, permissionPolicy: "auto_approve", builtIn: true });
    expect(ps[1]).toMatchObject({ command: "npx", args: ["--yes", "--prefer-offline", "@agentclientprotocol/claude-agent-acp"], env: { IS_SANDBOX: "1" } });
    expect(ps.find((p) => p.name === "gemini")!.args.slice(-2)).toEqual(["@google/gemini-cli", "--acp"]);
    expect(ps.find((p) => p.name === "opencode")!.args.slice(-2)).toEqual(["opencode-ai", "acp"]);
    expect(ps.find((p) => p.name === "codex")!.args.slice(-1)).toEqual(["@agentclientprotocol/codex-acp"]);
  });

  it("SES-9.10 the public view lists env names, never values", () => {
    const pub = toPublicProfile({ name: "x", command: "c", args: ["a"], env: { TOKEN: "s3cret", A: "1" }, permissionPolicy: "ask", builtIn: false });
    expect(AgentProfile.parse(pub)).toEqual({ name: "x", command: "c", args: ["a"], env: ["A", "TOKEN"], permissionPolicy: "ask", builtIn: false });
    expect(JSON.stringify(pub)).not.toContain("s3cret");
  });

  it("SES-9.10 scriptedAgentCommand resolves the same absolute paths under plain node as under vitest", () => {
    const here = scriptedAgentCommand();
    expect(here.command).toBe(process.execPath);
    expect(here.args[0]).toBe("--import");
    expect(here.args[1]).toMatch(/^\/.*tsx\/dist\/loader\.mjs$/);
    expect(here.args[2]).toBe(fileURLToPath(new URL("../../src/agents/scripted-agent.ts", import.meta.url)));
    const profilesUrl = new URL("../../src/agents/profiles.ts", import.meta.url).href;
    const out = execFileSync(
      process.execPath,
      ["--import", here.args[1]!, "--input-type=module", "-e", `const m = await import(${JSON.stringify(profilesUrl)}); process.stdout.write(JSON.stringify(m.scriptedAgentCommand()))`],
      { cwd: "/", encoding: "utf8" },
    );
    expect(JSON.parse(out)).toEqual(here);
  });
});
