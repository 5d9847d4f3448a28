import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadProfiles } from "./profile-config.js";
import { builtInProfiles } from "./profiles.js";

describe("SES-9 configured agent profiles ($GROVE_HOME/agents.json)", () => {
  const dirs: string[] = [];
  const home = (content?: string) => {
    const d = mkdtempSync(join(tmpdir(), "grove-profiles-"));
    dirs.push(d);
    if (content !== undefined) writeFileSync(join(d, "agents.json"), content);
    return d;
  };
  afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

  it("SES-9 without a file the built-ins are the profiles, scripted first", () => {
    const h = home();
    const p = loadProfiles(h, builtInProfiles({ home: h }));
    expect(p.map((x) => x.name)).toEqual(["scripted", "claude", "codex", "gemini", "opencode"]);
  });

  it("SES-9 a configured agent is added and one named like a built-in replaces it", () => {
    const h = home(JSON.stringify({ agents: [{ name: "mine", command: "/usr/bin/my-agent", args: ["--acp"], env: { TOKEN: "x" } }, { name: "codex", command: "codex-acp" }] }));
    const p = loadProfiles(h, builtInProfiles({ home: h }));
    expect(p.find((x) => x.name === "mine")).toMatchObject({ command: "/usr/bin/my-agent", args: ["--acp"], permissionPolicy: "ask", builtIn: false });
    expect(p.filter((x) => x.name === "codex")).toEqual([expect.objectContaining({ command: "codex-acp", builtIn: false })]);
  });

  it("SEC-7 inheritEnv names pass through validated and de-duplicated; absent means none", () => {
    const h = home(JSON.stringify({ agents: [{ name: "mine", command: "x", inheritEnv: ["GITHUB_TOKEN", "GROVE_EXTRA", "GITHUB_TOKEN"] }, { name: "bare", command: "y" }] }));
    const p = loadProfiles(h, builtInProfiles({ home: h }));
    expect(p.find((x) => x.name === "mine")!.inheritEnv).toEqual(["GITHUB_TOKEN", "GROVE_EXTRA"]);
    expect(p.find((x) => x.name === "bare")!.inheritEnv).toEqual([]);
  });

  it("SES-9 a malformed file is refused with a message naming the problem", () => {
    for (const [content, why] of [
      ["{not json", "invalid"],
      [JSON.stringify({ agents: [{ name: "Bad Name", command: "x" }] }), "agents.0.name"],
      [JSON.stringify({ agents: [{ name: "a", command: "x" }, { name: "a", command: "y" }] }), "twice"],
      [JSON.stringify({ agents: [{ name: "a", command: "x", permissionPolicy: "yolo" }] }), "permissionPolicy"],
      [JSON.stringify({ agents: [{ name: "a", command: "x", inheritEnv: "GITHUB_TOKEN" }] }), "agents.0.inheritEnv"],
      [JSON.stringify({ agents: [{ name: "a", command: "x", inheritEnv: ["NOT-A-NAME"] }] }), "agents.0.inheritEnv.0"],
      [JSON.stringify({ agents: [{ name: "a", command: "x", inheritEnv: ["GROVE_AUTH_TOKEN"] }] }), "secret of the Grove server"],
      [JSON.stringify({ agents: [{ name: "a", command: "x", inheritEnv: ["OK", "GROVE_DATABASE_URL"] }] }), "agents.0.inheritEnv.1"],
    ] as const) {
      const h = home(content);
      expect(() => loadProfiles(h, builtInProfiles({ home: h }))).toThrow(why);
    }
  });
});
