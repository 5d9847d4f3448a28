import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";
import { resolveLaunch } from "../src/agents/agent-install.js";
import { builtInProfiles } from "../src/agents/profiles.js";
import { AgentRuntime } from "../src/agents/runtime.js";
import { ensureBridge, INTEROP_CACHE } from "../test/interop/bridges.js";
import { FakeAnthropic } from "../test/interop/fake-anthropic.js";
import { timedRow } from "./stats.js";
import { generatedRepo, type Row } from "./util.js";

/**
 * AG-3: the before-first-prompt start of the installed Claude bridge through Grove's runtime
 * (spawn → initialize → session/new → set_mode to its asking mode) against the bare protocol
 * steps (spawn → initialize → session/new) in the same run, A B A B. No model is called, but
 * the model's address is a loopback fake API: with the first-party address and no network,
 * Claude Code holds its start for its remote managed-settings and policy-limits fetches from
 * api.anthropic.com (5 retries each, ~18 s) — an artefact of this offline machine, not of a
 * start anywhere the API is reachable (those fetches answer at once, then are cached).
 */
export async function claudeStartBench(rounds: number): Promise<Row[]> {
  await ensureBridge("claude");
  const profile = builtInProfiles({ home: INTEROP_CACHE }).find((p) => p.name === "claude")!;
  const launch = resolveLaunch(profile, INTEROP_CACHE);
  if (!launch.available) throw new Error(`claude bridge not installed: ${launch.problem}`);
  const refuse = createServer((s) => s.destroy());
  await new Promise<void>((r) => refuse.listen(0, "127.0.0.1", r));
  const proxy = `http://127.0.0.1:${(refuse.address() as { port: number }).port}`;
  const home = mkdtempSync(join(tmpdir(), "grove-bench-claude-"));
  const api = new FakeAnthropic(() => ({ text: "not called at start" }));
  await api.start();
  const env = {
    HOME: home,
    CLAUDE_CONFIG_DIR: join(home, ".claude"),
    ANTHROPIC_API_KEY: "sk-bench",
    ANTHROPIC_BASE_URL: api.url,
    HTTPS_PROXY: proxy,
    HTTP_PROXY: proxy,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
  };
  Object.assign(process.env, env);
  const repo = generatedRepo(10);
  const runtime = new AgentRuntime();
  const grove: number[] = [];
  const raw: number[] = [];
  for (let i = 0; i < rounds; i++) {
    let t0 = performance.now();
    await runtime.start({
      sessionId: `bench-${i}`,
      profile: { ...profile, command: launch.command, args: launch.args },
      cwd: repo,
      logFile: join(home, `bench-${i}.jsonl`),
      callbacks: { onEvent: () => undefined, onPermission: async () => "cancelled", onExit: () => undefined },
    });
    grove.push(performance.now() - t0);
    await runtime.stop(`bench-${i}`, { graceMs: 500 });

    t0 = performance.now();
    // Its own group, killed whole below: the bridge's Claude Code child must not outlive the round.
    const child = spawn(launch.command, launch.args, { cwd: repo, stdio: ["pipe", "pipe", "ignore"], env: { ...process.env, ...profile.env }, detached: true });
    const conn = acp
      .client({ name: "bench" })
      .connect(acp.ndJsonStream(Writable.toWeb(child.stdin) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>));
    await conn.agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
    await conn.agent.request(acp.methods.agent.session.new, { cwd: repo, mcpServers: [] });
    raw.push(performance.now() - t0);
    const exited = new Promise((r) => child.once("exit", r));
    process.kill(-child.pid!, "SIGKILL");
    await exited;
  }
  refuse.close();
  await api.close();
  // A killed bridge's children may still be writing there for a moment.
  for (const d of [home, repo]) {
    try {
      rmSync(d, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
    } catch (e) {
      process.stderr.write(`claude start bench: could not remove ${d}: ${String(e)}\n`);
    }
  }
  return [timedRow("claude bridge start, installed, before first prompt", grove, raw, "< 2 s")];
}
