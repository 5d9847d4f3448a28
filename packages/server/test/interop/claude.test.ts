import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase } from "../fixture/db.js";
import { repoAndTask } from "../fixture/scenario.js";
import { startTestServer, waitForSession } from "../fixture/server.js";
import { ensureBridge, linkBridge } from "./bridges.js";
import { attacksFailAndWorkWorks, toolSequence } from "./confinement.js";
import { contentText, FakeAnthropic, lastIsToolResult, type ModelReply, type SeenRequest } from "./fake-anthropic.js";
import { agentNetworkEnv, hostPortOf, pendingAsk, InteropServer, RefusingProxy, setEnv } from "./harness.js";
import { authFixWorks, cancelEndsTurnFast, killRestartResume, shellAskAnsweredByCli, writeLandsInWorktree } from "./harness-scenarios.js";

/**
 * AG-3 interop suite: the real Claude Code ACP bridge (pinned, installed with npm into the
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
  return (req.body.messages ?? [])
    .filter((m) => m.role === "user")
    .map((m) => contentText(m.content))
    .join("\n");
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
    // The refusing proxy, and no telemetry or update checks (they would try api.anthropic.com).
    ...agentNetworkEnv("claude", proxy.url),
  });
}, 600_000);

afterAll(async () => {
  restoreEnv();
  await fake.close();
  await proxy.close();
  rmSync(agentHome, { recursive: true, force: true });
});

describe("interop: Claude Code ACP bridge against a fake Anthropic API (AG-3)", () => {
  // SBX-1/SBX-2: confined, the fake API on its allow-list.
  const server = new InteropServer("claude", { modelUrl: () => fake.url, home: () => agentHome });

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
      await shellAskAnsweredByCli(server, {
        script: () =>
          (fake.script = toolThenText({ name: "Bash", input: { command: "echo from-bash > bash.txt", description: "write bash.txt" } }, "Bash done.")),
        file: "bash.txt",
        content: "from-bash\n",
      });
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
    await killRestartResume(
      "claude",
      {
        streamSlowly: (text) => (fake.script = () => ({ text, chunks: 600, chunkDelayMs: 100 })),
        answer: (text) => (fake.script = () => ({ text })),
        mainCount: () => fake.main.length,
        userTextsSince: () => userTexts(fake.main.at(-1)!),
      },
      { modelUrl: () => fake.url, home: () => agentHome },
    );
  }, 400_000);

  it("AG-3 the bridge with no credentials fails with agent_auth_required naming the fix; setting ANTHROPIC_API_KEY (and the model's address) as it says makes the next session work", async () => {
    try {
      // No key and no model address: a person who never set Claude up. At start when the
      // bridge's own auth probe reports "none" in time, else at its first turn (the bridge
      // answers authRequired): never as an internal error after a model call.
      await authFixWorks(server, "claude", {
        withoutCredentials: () => setEnv({ ANTHROPIC_API_KEY: undefined, ANTHROPIC_BASE_URL: undefined }),
        mentions: ["ANTHROPIC_API_KEY"],
        follow: () => void setEnv({ ANTHROPIC_API_KEY: "sk-ant-fake-key", ANTHROPIC_BASE_URL: fake.url }),
        answer: (text) => (fake.script = () => ({ text })),
        sawPrompt: (text) => fake.main.some((r) => userTexts(r).includes(text) && r.auth === "sk-ant-fake-key"),
      });
    } finally {
      await server.close();
    }
  }, 300_000);

  it("AG-2 SBX-1: a custom profile of the Claude bridge (its own name, no policyModes) under ask asks, confined, in the bridge's default configuration", async () => {
    const db = await freshDatabase("sqlite");
    linkBridge(db.home, "claude");
    const bin = join(db.home, "agents", "claude", "node_modules", "@agentclientprotocol", "claude-agent-acp", "dist", "index.js");
    const inherit = ["ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "CLAUDE_CONFIG_DIR", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"];
    writeFileSync(
      join(db.home, "agents.json"),
      JSON.stringify({
        agents: [
          {
            name: "my-claude",
            command: process.execPath,
            args: [bin],
            env: { IS_SANDBOX: "1", HOME: agentHome },
            inheritEnv: inherit,
            permissionPolicy: "ask",
            sandbox: { network: [hostPortOf(fake.url)], writable: [agentHome] },
          },
        ],
      }),
    );
    const srv = await startTestServer("sqlite", db);
    try {
      const { task } = await repoAndTask(srv);
      const s = await srv.api("POST", `/tasks/${task.id}/sessions`, { agent: "my-claude", prompt: "" });
      expect(s.status, JSON.stringify(s.body)).toBe(201);
      expect(s.body.sandbox).toBe("confined");
      const sid = s.body.id as string;
      // Keyed by the bridge package: the custom profile is put in Claude's asking mode.
      expect((await srv.api("GET", `/sessions/${sid}`)).body.modes.currentModeId).toBe("default");
      const worktree = (await srv.api("GET", `/sessions/${sid}/workspace`)).body.workspacePath as string;
      const target = join(worktree, "custom.txt");
      fake.script = toolThenText({ name: "Write", input: { file_path: target, content: "from the custom profile\n" } }, "Wrote it.");
      expect((await srv.api("POST", `/sessions/${sid}/prompt`, { prompt: "Please create custom.txt" })).status).toBe(202);
      const ask = await pendingAsk(srv.api, sid);
      expect(ask.toolKind).toBe("edit");
      expect(existsSync(target)).toBe(false);
      const allow = ask.options.find((o) => o.kind === "allow_once")!;
      expect((await srv.api("POST", `/sessions/${sid}/permissions/${ask.requestId}`, { optionId: allow.optionId })).status).toBe(204);
      await waitForSession(srv.api, sid, ["waiting_for_input"], 60_000);
      expect(readFileSync(target, "utf8")).toBe("from the custom profile\n");
    } finally {
      await srv.close();
    }
  }, 240_000);

  it("SBX-1 SBX-2 SBX-5: from the real Claude bridge's own Bash tool every attack of the shared table fails and nothing changes (blocked notes, mode kept); an edit, node, npm test and git commit by the agent work and Changes equal git", async () => {
    await attacksFailAndWorkWorks(
      server,
      {
        script: (tools, text) => (fake.script = toolSequence(lastIsToolResult, tools, text)),
        shell: (command) => ({ name: "Bash", input: { command, description: "run a command" } }),
        write: (file_path, content) => ({ name: "Write", input: { file_path, content } }),
        askMode: "default",
        autoMode: "bypassPermissions",
      },
      agentHome,
    );
  }, 400_000);

  it("AG-3 SBX-2: no traffic left loopback (every attempt through the proxy is refused and counted)", () => {
    expect(fake.main.length).toBeGreaterThan(0);
    expect(proxy.attempts).toEqual([]);
  });
});
