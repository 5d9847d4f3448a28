import { copyFileSync, chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { checkAgent } from "../../src/agents/agent-check.js";
import { binLaunch, resolveLaunch } from "../../src/agents/agent-install.js";
import { envAuthMethod } from "../../src/agents/agent-setup.js";
import type { AgentProfileConfig } from "../../src/agents/profiles.js";
import { AgentRuntime } from "../../src/agents/runtime.js";
import { cleanup, makeRepo, Recorder, tempDir } from "./fixture.js";

/**
 * AG-3: installed bins run as what they are; an agent that advertises an `env_var` auth method is
 * signed in with ACP `authenticate` when its variable is set; `grove agents check` starts the agent
 * with the environment a session gives it and reports its stderr when it fails.
 */
const AGENT = fileURLToPath(new URL("./env-auth-agent.mjs", import.meta.url));
const runtime = new AgentRuntime({ startTimeoutMs: 20_000 });
afterEach(() => runtime.stopAll({ graceMs: 500 }));
afterAll(cleanup);

/** A GROVE_HOME with `pkg` "installed" under agents/<name>, its bin being `bin` (copied). */
function installFake(name: string, pkg: string, bin: string, binName: string): string {
  const home = tempDir("grove-home-");
  const root = join(home, "agents", name, "node_modules", pkg);
  mkdirSync(join(root, "bin"), { recursive: true });
  writeFileSync(join(root, "package.json"), JSON.stringify({ name: pkg, version: "1.0.0", bin: { [name]: `./bin/${binName}` } }));
  copyFileSync(bin, join(root, "bin", binName));
  chmodSync(join(root, "bin", binName), 0o755);
  return home;
}

function bridge(name: string, pkg: string): AgentProfileConfig {
  return { name, command: "node", args: [], env: {}, permissionPolicy: "ask", builtIn: true, install: { package: pkg, version: "1.0.0", args: ["acp"] } };
}

describe("agent install and start (AG-3)", () => {
  it("AG-3.1 a native binary (an ELF linked as bin/x.exe, like opencode's) runs directly; a Node script runs with node; a shell script runs directly", () => {
    const native = installFake("nat", "nat-pkg", "/bin/true", "nat.exe");
    const launch = resolveLaunch(bridge("nat", "nat-pkg"), native);
    expect(launch).toMatchObject({ available: true, command: join(native, "agents/nat/node_modules/nat-pkg/bin/nat.exe"), args: ["acp"], version: "1.0.0" });

    const script = installFake("js", "js-pkg", AGENT, "js.mjs");
    expect(resolveLaunch(bridge("js", "js-pkg"), script)).toMatchObject({
      available: true,
      command: process.execPath,
      args: [join(script, "agents/js/node_modules/js-pkg/bin/js.mjs"), "acp"],
    });

    const dir = tempDir("grove-bins-");
    writeFileSync(join(dir, "node-shebang"), "#!/usr/bin/env node\nconsole.log(1)\n");
    writeFileSync(join(dir, "sh-shebang"), "#!/bin/sh\necho 1\n");
    expect(binLaunch(join(dir, "node-shebang"))).toEqual({ command: process.execPath, args: [join(dir, "node-shebang")] });
    expect(binLaunch(join(dir, "sh-shebang"))).toEqual({ command: join(dir, "sh-shebang"), args: [] });
  });

  it("AG-3 the auth method sent is the first env_var method whose variables are all set (codex-acp's real list); none without them", () => {
    const codexInit = JSON.parse(
      '{"protocolVersion":1,"authMethods":[{"id":"chatgpt","name":"Login with ChatGPT"},{"type":"env_var","id":"codex-api-key","name":"Use CODEX_API_KEY","vars":[{"name":"CODEX_API_KEY"}]},{"type":"env_var","id":"openai-api-key","name":"Use OPENAI_API_KEY","vars":[{"name":"OPENAI_API_KEY"}]}]}',
    );
    expect(envAuthMethod(codexInit, { OPENAI_API_KEY: "sk" })).toBe("openai-api-key");
    expect(envAuthMethod(codexInit, { OPENAI_API_KEY: "sk", CODEX_API_KEY: "ck" })).toBe("codex-api-key");
    expect(envAuthMethod(codexInit, { CODEX_API_KEY: "" })).toBeUndefined();
    expect(envAuthMethod(codexInit, {})).toBeUndefined();
  });

  it("AG-3 with the key in its environment the agent is signed in with ACP authenticate and starts; without it the start fails agent_auth_required naming the fix", async () => {
    const home = tempDir("grove-home-");
    const profile = (env: Record<string, string>): AgentProfileConfig => ({
      name: "envy",
      command: process.execPath,
      args: [AGENT],
      env,
      permissionPolicy: "ask",
      builtIn: false,
      auth: { fix: "set PROBE_KEY for the agent" },
    });
    const h = await runtime.start({
      sessionId: "ses_env_1",
      profile: profile({ PROBE_KEY: "k" }),
      cwd: makeRepo(),
      logFile: join(home, "a.jsonl"),
      callbacks: new Recorder(),
    });
    expect((await h.prompt("hi")).stopReason).toBe("end_turn");
    const frames = readFileSync(join(home, "a.jsonl"), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l).msg);
    expect(frames.filter((m) => m.method === "authenticate").map((m) => m.params.methodId)).toEqual(["probe-key"]);

    const err = await runtime
      .start({ sessionId: "ses_env_2", profile: profile({}), cwd: makeRepo(), logFile: join(home, "b.jsonl"), callbacks: new Recorder() })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "agent_auth_required", details: { fix: "set PROBE_KEY for the agent" } });
  }, 30_000);

  it("AG-3 SEC-7 `agents check` starts the agent with the profile's inheritEnv (what a session gets), and its failure carries the agent's stderr", async () => {
    const home = tempDir("grove-home-");
    const saved = process.env.PROBE_SEEN;
    process.env.PROBE_SEEN = "inherited";
    try {
      const p: AgentProfileConfig = { name: "envy", command: process.execPath, args: [AGENT], env: {}, permissionPolicy: "ask", builtIn: false };
      const opts = { cwd: makeRepo(), logFile: join(home, "check.jsonl"), now: () => new Date().toISOString(), timeoutMs: 20_000 };
      expect((await checkAgent(p, home, opts)).version).toBe("none");
      expect((await checkAgent({ ...p, inheritEnv: ["PROBE_SEEN"] }, home, opts)).version).toBe("inherited");
      const err = await checkAgent({ ...p, env: { STDERR_AND_EXIT: "fatal: cannot read the agent's config" } }, home, opts).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: "agent_start_failed", details: { step: "initialize" } });
      expect((err as { details: { stderr: string } }).details.stderr).toContain("fatal: cannot read the agent's config");
    } finally {
      if (saved === undefined) delete process.env.PROBE_SEEN;
      else process.env.PROBE_SEEN = saved;
    }
  }, 30_000);
});
