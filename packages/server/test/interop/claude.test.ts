import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repoAndTask } from "../fixture/scenario.js";
import { waitForSession } from "../fixture/server.js";
import { runGrove } from "../cli/run-cli.js";
import { ensureBridge } from "./bridges.js";
import { contentText, FakeAnthropic, lastIsToolResult, type ModelReply, type SeenRequest } from "./fake-anthropic.js";
import { cancelEndsTurnFast, InteropServer, killRestartResume, pendingAsk, proxyEnv, RefusingProxy, setEnv, writeLandsInWorktree } from "./harness.js";

/**
 * Issue 10 interop suite: the real Claude Code ACP bridge (pinned, installed with npm into the
 * interop cache; an install failure fails the suite) driven by Grove against a fake Anthropic
 * Messages API on loopback. No hand-written agent settings: the built-in `claude` profile as
 * shipped, its own HOME, the model's address and a key in the environment, and a proxy that
 * refuses and counts every attempt to reach anything else.
 */
const fake = new FakeAnthropic(() => ({ text: "nothing scripted" }));
const proxy = new RefusingProxy();
let restoreEnv = () => undefined as void;
let agentHome = "";

function userTexts(req: SeenRequest): string {
  return (req.body.messages ?? []).filter((m) => m.role === "user").map((m) => contentText(m.content)).join("\n");
}

/** The model's script for one test: a tool call when the person asks, then a text answer. */
function toolThenText(tool: { name: string; input: Record<string, unknown> }, text: string): (req: SeenRequest) => ModelReply {
  return (req) => (lastIsToolResult(req) ? { text } : { toolUse: tool });
}

beforeAll(async () => {
  await ensureBridge("claude");
  await fake.start();
  await proxy.start();
  agentHome = mkdtempSync(join(tmpdir(), "grove-claude-home-"));
  // What the Claude bridge and Claude Code see: the fake model, a refusing proxy for everything else.
  restoreEnv = setEnv({
    HOME: agentHome,
    CLAUDE_CONFIG_DIR: join(agentHome, ".claude"),
    ANTHROPIC_BASE_URL: fake.url,
    ANTHROPIC_API_KEY: "sk-ant-fake-key",
    ...proxyEnv(proxy.url),
    // Telemetry and update checks would otherwise try api.anthropic.com through the proxy.
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
  });
}, 600_000);

afterAll(async () => {
  restoreEnv();
  await fake.close();
  await proxy.close();
  rmSync(agentHome, { recursive: true, force: true });
});

describe("interop: Claude Code ACP bridge against a fake Anthropic API (issue 10)", () => {
  const server = new InteropServer("claude");

  it("AG-2 SES-5 CHG-1 policy ask in the default configuration: the Write asks Grove (answered by API), lands in the worktree only, one row per tool call ending completed, Changes equal git", async () => {
    try {
      await writeLandsInWorktree(server, {
        script: (target) => (fake.script = toolThenText({ name: "Write", input: { file_path: target, content: "hello from claude\n" } }, "I wrote hello.txt.")),
        doneText: "I wrote hello.txt.",
        agentHome,
        expectMode: "default",
      });
    } finally {
      await server.close();
    }
  }, 240_000);

  it("AG-2 CLI: a Bash tool call asks too and is answered with `grove session answer … allow`; `session show` prints tool status and the pending request", async () => {
    try {
      const { sid, worktree, api, url } = await server.launch();
      fake.script = toolThenText({ name: "Bash", input: { command: "echo from-bash > bash.txt", description: "write bash.txt" } }, "Bash done.");
      expect((await api("POST", `/sessions/${sid}/prompt`, { prompt: "run a command" })).status).toBe(202);
      const ask = await pendingAsk(api, sid);
      expect(ask.toolKind).toBe("execute");
      const show = await runGrove(["session", "show", sid, "--server", url]);
      expect(show.code).toBe(0);
      expect(show.stdout).toContain(`permission ${ask.requestId}`);
      expect(show.stdout).toMatch(/tool \[(pending|in_progress)\]/);
      const answered = await runGrove(["session", "answer", sid, ask.requestId, "allow", "--server", url]);
      expect(answered.code, answered.stderr).toBe(0);
      await waitForSession(api, sid, ["waiting_for_input"], 60_000);
      expect(readFileSync(join(worktree, "bash.txt"), "utf8")).toBe("from-bash\n");
      const after = await runGrove(["session", "show", sid, "--server", url]);
      expect(after.stdout).toMatch(/tool \[completed\]/);
    } finally {
      await server.close();
    }
  }, 240_000);

  it("AG-1 cancel mid-stream and during a running tool ends the turn within 2 s with every tool row closed", async () => {
    try {
      await cancelEndsTurnFast(server, {
        streamSlowly: (text) => (fake.script = () => ({ text, chunks: 300, chunkDelayMs: 100 })),
        runForever: () => (fake.script = toolThenText({ name: "Bash", input: { command: "tail -f /dev/null", description: "wait for input" } }, "slept")),
      });
    } finally {
      await server.close();
    }
  }, 240_000);

  it("AG-1 SES-6 kill -9 of the server mid-turn → restart marks the interrupted turn → the next prompt resumes with session/load in the same cwd and the model sees the history", async () => {
    await killRestartResume("claude", {
      streamSlowly: (text) => (fake.script = () => ({ text, chunks: 600, chunkDelayMs: 100 })),
      answer: (text) => (fake.script = () => ({ text })),
      mainCount: () => fake.main.length,
      userTextsSince: () => userTexts(fake.main.at(-1)!),
    });
  }, 400_000);

  it("AG-3 the bridge with no credentials fails at start with agent_auth_required naming the fix", async () => {
    // No key and no model address: a person who never set Claude up.
    const restore = setEnv({ ANTHROPIC_API_KEY: undefined, ANTHROPIC_BASE_URL: undefined });
    try {
      const t0 = Date.now();
      const srv = await server.bare();
      const { task } = await repoAndTask(srv);
      const s = await srv.api("POST", `/tasks/${task.id}/sessions`, { agent: "claude", prompt: "hello" });
      expect(s.status).toBe(201);
      // At start when the bridge's own auth probe reports "none" in time, else at its first
      // turn (the bridge answers authRequired): never as an internal error after a model call.
      const failed = s.body.state === "failed" ? s.body : await waitForSession(srv.api, s.body.id, ["failed"], 60_000);
      expect(failed.lastError.code).toBe("agent_auth_required");
      expect(failed.lastError.message).toContain("ANTHROPIC_API_KEY");
      expect(Date.now() - t0).toBeLessThan(90_000);
    } finally {
      restore();
      await server.close();
    }
  });

  it("issue 10: no traffic left loopback (every attempt through the proxy is refused and counted)", () => {
    expect(fake.main.length).toBeGreaterThan(0);
    expect(proxy.attempts).toEqual([]);
  });
});
