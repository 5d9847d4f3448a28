import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadProfiles } from "./profile-config.js";
import { builtInProfiles } from "./profiles.js";
import { mcpToolNamesOf } from "./bridges.js";

describe("SES-9 configured agent profiles ($GROVE_HOME/agents.json)", () => {
  const dirs: string[] = [];
  const home = (content?: string) => {
    const d = mkdtempSync(join(tmpdir(), "grove-profiles-"));
    dirs.push(d);
    if (content !== undefined) writeFileSync(join(d, "agents.json"), content);
    return d;
  };
  afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

  it("MCP-2.7 a Gemini CLI profile serves ask_user as ask_person (it hides tools named ask_user over ACP): the built-in, an entry extending it, and a profile of its own running the same package; a profile's own mcpToolNames wins", () => {
    const h = home(
      JSON.stringify({
        agents: [
          { name: "gemini", env: { EXTRA: "1" } },
          { name: "gem2", command: "node", args: ["/opt/x/node_modules/@google/gemini-cli", "--acp"] },
          { name: "gem3", command: "node", args: ["/opt/x/node_modules/@google/gemini-cli"], mcpToolNames: { ask_user: "ask_human" } },
        ],
      }),
    );
    const p = loadProfiles(h, builtInProfiles({ home: h }));
    const names = (n: string) => mcpToolNamesOf(p.find((x) => x.name === n)!);
    expect(names("gemini")).toEqual({ ask_user: "ask_person" });
    expect(names("gem2")).toEqual({ ask_user: "ask_person" });
    expect(names("gem3")).toEqual({ ask_user: "ask_human" });
    expect(names("claude")).toBeUndefined();
  });

  it("SES-9 without a file the built-ins are the profiles, scripted first", () => {
    const h = home();
    const p = loadProfiles(h, builtInProfiles({ home: h }));
    expect(p.map((x) => x.name)).toEqual(["scripted", "claude", "codex", "gemini", "opencode"]);
  });

  it("SES-9 a configured agent is added; one named like a built-in with its own command replaces the program, keeping the rest", () => {
    const h = home(
      JSON.stringify({
        agents: [
          { name: "mine", command: "/usr/bin/my-agent", args: ["--acp"], env: { TOKEN: "x" } },
          { name: "codex", command: "codex-acp" },
        ],
      }),
    );
    const p = loadProfiles(h, builtInProfiles({ home: h }));
    expect(p.find((x) => x.name === "mine")).toMatchObject({ command: "/usr/bin/my-agent", args: ["--acp"], permissionPolicy: "ask", builtIn: false });
    const codex = p.filter((x) => x.name === "codex");
    expect(codex).toEqual([expect.objectContaining({ command: "codex-acp", args: [], builtIn: false, policyModes: { ask: "read-only" } })]);
    expect(codex[0]!.install).toBeUndefined();
  });

  it("AG-2 SBX-1: an entry named like a built-in extends it: its fields override, env merges, the rest (install, policyModes, auth) is kept", () => {
    const h = home(JSON.stringify({ agents: [{ name: "claude", env: { EXTRA: "1" }, sandbox: { network: ["127.0.0.1:9999"] } }] }));
    const builtIn = builtInProfiles({ home: h }).find((x) => x.name === "claude")!;
    const claude = loadProfiles(h, builtInProfiles({ home: h })).find((x) => x.name === "claude")!;
    expect(claude.env).toEqual({ IS_SANDBOX: "1", EXTRA: "1" });
    expect(claude.policyModes).toEqual({ ask: "default", auto_approve: "acceptEdits" });
    expect(claude.install).toEqual(builtIn.install);
    expect(claude.args).toEqual(builtIn.args);
    expect(claude.inheritEnv).toEqual(builtIn.inheritEnv);
    expect(claude.auth).toEqual(builtIn.auth);
    expect(claude.sandbox).toEqual({ network: ["127.0.0.1:9999"] });
    expect(claude.permissionPolicy).toBe("ask");
  });

  it("AG-2: a custom profile that runs the Claude bridge gets the bridge's ask mode (keyed by package, not by name)", () => {
    const h = home(
      JSON.stringify({
        agents: [
          { name: "my-claude", command: "node", args: ["/opt/x/node_modules/@agentclientprotocol/claude-agent-acp/dist/index.js"], permissionPolicy: "ask" },
          { name: "via-npx", command: "npx", args: ["-y", "@agentclientprotocol/claude-agent-acp@0.101.0"] },
          { name: "own-modes", command: "npx", args: ["@agentclientprotocol/claude-agent-acp"], policyModes: { ask: "plan" } },
          { name: "lookalike", command: "node", args: ["/opt/node_modules/@agentclientprotocol/claude-agent-acp-fork/x.js"] },
        ],
      }),
    );
    const p = loadProfiles(h, builtInProfiles({ home: h }));
    expect(p.find((x) => x.name === "my-claude")!.policyModes).toEqual({ ask: "default", auto_approve: "acceptEdits" });
    expect(p.find((x) => x.name === "via-npx")!.policyModes).toEqual({ ask: "default", auto_approve: "acceptEdits" });
    expect(p.find((x) => x.name === "own-modes")!.policyModes).toEqual({ ask: "plan" });
    expect(p.find((x) => x.name === "lookalike")!.policyModes).toBeUndefined();
  });

  it('SBX-1 SBX-2: sandbox is "off" or {network, writable, readable, deny}; bad entries are refused naming the field', () => {
    const h = home(
      JSON.stringify({
        agents: [
          { name: "a", command: "x", sandbox: "off" },
          {
            name: "b",
            command: "y",
            sandbox: { network: ["api.example.com:443", "*.example.org", "[::1]:8080"], writable: ["/srv/cache"], deny: ["/srv/secret"] },
          },
        ],
      }),
    );
    const p = loadProfiles(h, builtInProfiles({ home: h }));
    expect(p.find((x) => x.name === "a")!.sandbox).toBe("off");
    expect(p.find((x) => x.name === "b")!.sandbox).toEqual({
      network: ["api.example.com:443", "*.example.org", "[::1]:8080"],
      writable: ["/srv/cache"],
      deny: ["/srv/secret"],
    });
    for (const [sandbox, why] of [
      ["on", "agents.0.sandbox"],
      [{ network: ["http://x"] }, "agents.0.sandbox.network.0"],
      [{ network: ["x:99999"] }, "not a port"],
      [{ writable: ["relative/path"] }, "agents.0.sandbox.writable.0"],
      [{ other: true }, "agents.0.sandbox"],
    ] as const) {
      const bad = home(JSON.stringify({ agents: [{ name: "a", command: "x", sandbox }] }));
      expect(() => loadProfiles(bad, builtInProfiles({ home: bad }))).toThrow(why);
    }
    const noCommand = home(JSON.stringify({ agents: [{ name: "new-one" }] }));
    expect(() => loadProfiles(noCommand, builtInProfiles({ home: noCommand }))).toThrow("command is required");
  });

  it("SEC-7 inheritEnv names pass through validated and de-duplicated; absent means none", () => {
    const h = home(
      JSON.stringify({
        agents: [
          { name: "mine", command: "x", inheritEnv: ["GITHUB_TOKEN", "GROVE_EXTRA", "GITHUB_TOKEN"] },
          { name: "bare", command: "y" },
        ],
      }),
    );
    const p = loadProfiles(h, builtInProfiles({ home: h }));
    expect(p.find((x) => x.name === "mine")!.inheritEnv).toEqual(["GITHUB_TOKEN", "GROVE_EXTRA"]);
    expect(p.find((x) => x.name === "bare")!.inheritEnv).toEqual([]);
  });

  it("SES-9 a malformed file is refused with a message naming the problem", () => {
    for (const [content, why] of [
      ["{not json", "invalid"],
      [JSON.stringify({ agents: [{ name: "Bad Name", command: "x" }] }), "agents.0.name"],
      [
        JSON.stringify({
          agents: [
            { name: "a", command: "x" },
            { name: "a", command: "y" },
          ],
        }),
        "twice",
      ],
      [JSON.stringify({ agents: [{ name: "a", command: "x", permissionPolicy: "yolo" }] }), "permissionPolicy"],
      [JSON.stringify({ agents: [{ name: "a", command: "x", inheritEnv: "GITHUB_TOKEN" }] }), "agents.0.inheritEnv"],
      [JSON.stringify({ agents: [{ name: "a", command: "x", inheritEnv: ["NOT-A-NAME"] }] }), "agents.0.inheritEnv.0"],
      [JSON.stringify({ agents: [{ name: "a", command: "x", inheritEnv: ["GROVE_AUTH_TOKEN"] }] }), "secret of the Grove server"],
      [JSON.stringify({ agents: [{ name: "a", command: "x", inheritEnv: ["OK", "GROVE_DATABASE_URL"] }] }), "agents.0.inheritEnv.1"],
      // MCP-1: a rename may not take another tool's name, nor be a name an MCP client cannot offer.
      [JSON.stringify({ agents: [{ name: "a", command: "x", mcpToolNames: { ask_user: "task_get" } }] }), "task_get would be served twice"],
      [JSON.stringify({ agents: [{ name: "a", command: "x", mcpToolNames: { ask_user: "Ask-Me" } }] }), "Ask-Me is not a tool name"],
      [JSON.stringify({ agents: [{ name: "a", command: "x", mcpToolNames: { merge: "m" } }] }), "merge is not a grove tool"],
    ] as const) {
      const h = home(content);
      expect(() => loadProfiles(h, builtInProfiles({ home: h }))).toThrow(why);
    }
  });
});
