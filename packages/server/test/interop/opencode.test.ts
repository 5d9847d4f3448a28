import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBridge } from "./bridges.js";
import { attacksFailAndWorkWorks, toolSequence } from "./confinement.js";
import { chatTexts, FakeOpenAiChat, lastIsToolMessage, type ChatRequest } from "./fake-openai-chat.js";
import type { ModelReply } from "./fake-model-api.js";
import { agentNetworkEnv, messages, InteropServer, RefusingProxy, setEnv } from "./harness.js";
import { authFixWorks, cancelEndsTurnFast, killRestartResume, shellAskAnsweredByCli, writeLandsInWorktree } from "./harness-scenarios.js";

/**
 * Interop suite, fourth agent: the real opencode in ACP mode (`opencode acp`: the `opencode-ai`
 * package links a native binary, which Grove runs directly; pinned, installed with npm into the
 * interop cache; an install failure fails the suite) driven by Grove against a fake
 * OpenAI-compatible chat-completions API on loopback. The built-in `opencode` profile as shipped
 * (its permission setting makes edits and commands ask): its own HOME, a key in the environment,
 * the refusing proxy and opencode's own network switches (harness `agentNetworkEnv`). The one file
 * in its HOME is the person's choice of provider and model (`~/.config/opencode/opencode.json`:
 * an `@ai-sdk/openai-compatible` provider at the fake, its key read from OPENAI_API_KEY).
 */
const fake = new FakeOpenAiChat(() => ({ text: "nothing scripted" }));
const proxy = new RefusingProxy();
let restoreEnv = () => undefined as void;
let agentHome = "";

function providerConfig(url: string): string {
  return JSON.stringify({
    $schema: "https://opencode.ai/config.json",
    provider: {
      fake: {
        npm: "@ai-sdk/openai-compatible",
        name: "Fake",
        options: { baseURL: `${url}/v1`, apiKey: "{env:OPENAI_API_KEY}" },
        models: { "fake-model": { name: "Fake Model" } },
      },
    },
    model: "fake/fake-model",
  });
}

function writeProvider(home: string): void {
  mkdirSync(join(home, ".config", "opencode"), { recursive: true });
  writeFileSync(join(home, ".config", "opencode", "opencode.json"), providerConfig(fake.url));
}

function toolThenText(tool: { name: string; input: Record<string, unknown> }, text: string): (req: ChatRequest) => ModelReply {
  return (req) => (lastIsToolMessage(req) ? { text } : { toolUse: tool });
}

beforeAll(async () => {
  await ensureBridge("opencode");
  await fake.start();
  await proxy.start();
  agentHome = mkdtempSync(join(tmpdir(), "grove-opencode-home-"));
  writeProvider(agentHome);
  restoreEnv = setEnv({ HOME: agentHome, OPENAI_API_KEY: "sk-fake-openai-key", ...agentNetworkEnv("opencode", proxy.url) });
}, 600_000);

afterAll(async () => {
  restoreEnv();
  await fake.close();
  await proxy.close();
  rmSync(agentHome, { recursive: true, force: true });
});

describe("interop: opencode (ACP) against a fake OpenAI-compatible chat-completions API", () => {
  // SBX-1/SBX-2: confined, the fake API on its allow-list (its own server inside on 127.0.0.2, see agents/bridges.ts).
  // Its HOME is the one the test set (AG-3 swaps in a home without a provider).
  const server = new InteropServer("opencode", { modelUrl: () => fake.url, home: () => process.env.HOME! });

  it("AG-2 SES-5 CHG-1 policy ask in the default configuration: write asks Grove (answered by API), lands in the worktree only, one row per tool call ending completed, Changes equal git", async () => {
    try {
      await writeLandsInWorktree(server, {
        script: (target) =>
          (fake.script = toolThenText({ name: "write", input: { filePath: target, content: "hello from opencode\n" } }, "I wrote hello.txt.")),
        doneText: "I wrote hello.txt.",
        agentHome,
        expectMode: "build",
      });
      expect(fake.main.at(-1)?.auth).toBe("Bearer sk-fake-openai-key");
    } finally {
      await server.close();
    }
  }, 240_000);

  it("AG-2 modes an agent reports only as a `mode` config option (opencode: build, plan) are exposed and switched with session/set_config_option", async () => {
    try {
      const { sid, api, home } = await server.launch();
      const s = (await api("GET", `/sessions/${sid}`)).body;
      expect(s.modes.currentModeId).toBe("build");
      expect(s.modes.availableModes.map((m: { id: string }) => m.id)).toEqual(expect.arrayContaining(["build", "plan"]));
      const switched = await api("POST", `/sessions/${sid}/mode`, { modeId: "plan" });
      expect(switched.status, JSON.stringify(switched.body)).toBe(200);
      expect((await api("GET", `/sessions/${sid}`)).body.modes.currentModeId).toBe("plan");
      const frames = readFileSync(`${home}/logs/${sid}.acp.jsonl`, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l).msg);
      expect(frames.some((m) => m.method === "session/set_config_option" && m.params.configId === "mode" && m.params.value === "plan")).toBe(true);
      expect(frames.some((m) => m.method === "session/set_mode")).toBe(false);
    } finally {
      await server.close();
    }
  }, 240_000);

  it("AG-2 CLI: a bash command asks too and is answered with `grove session answer … allow`; `session show` prints tool status and the pending request", async () => {
    try {
      await shellAskAnsweredByCli(server, {
        script: () =>
          (fake.script = toolThenText({ name: "bash", input: { command: "echo from-shell > shell.txt", description: "write shell.txt" } }, "Ran it.")),
        file: "shell.txt",
        content: "from-shell\n",
      });
    } finally {
      await server.close();
    }
  }, 240_000);

  it("AG-1 cancel mid-stream and during a running bash command ends the turn within 2 s with every tool row closed", async () => {
    try {
      await cancelEndsTurnFast(server, {
        streamSlowly: (text) => (fake.script = () => ({ text, chunks: 300, chunkDelayMs: 100 })),
        runForever: () => (fake.script = toolThenText({ name: "bash", input: { command: "tail -f /dev/null", description: "wait for input" } }, "slept")),
      });
    } finally {
      await server.close();
    }
  }, 240_000);

  it("AG-1 SES-6 kill -9 of the server mid-turn → restart marks the interrupted turn → the next prompt resumes with session/load in the same cwd and the model sees the history", async () => {
    await killRestartResume(
      "opencode",
      {
        streamSlowly: (text) => (fake.script = () => ({ text, chunks: 600, chunkDelayMs: 100 })),
        answer: (text) => (fake.script = () => ({ text })),
        mainCount: () => fake.main.length,
        userTextsSince: (i) =>
          fake.main
            .slice(i)
            .map((r) => chatTexts(r))
            .join("\n"),
      },
      { modelUrl: () => fake.url, home: () => agentHome },
    );
  }, 400_000);

  it("AG-3 opencode with no provider (its vendor's free model, unreachable) fails its first turn with agent_auth_required instead of hanging; configuring a provider as the fix says makes the next session work", async () => {
    // A person who never set opencode up: no provider file, no key.
    const bare = mkdtempSync(join(tmpdir(), "grove-opencode-bare-"));
    const restoreHome = setEnv({ HOME: bare });
    const before = proxy.attempts.length;
    try {
      const { api, failedSessionId } = await authFixWorks(server, "opencode", {
        withoutCredentials: () => setEnv({ OPENAI_API_KEY: undefined }),
        mentions: ["opencode auth login", "opencode.json"],
        follow: () => writeProvider(bare),
        answer: (text) => (fake.script = () => ({ text })),
        sawPrompt: (text) => fake.main.some((r) => chatTexts(r).includes(text) && r.auth === "Bearer sk-fake-openai-key"),
        boundMs: 90_000,
      });
      // The explicit allow: without a provider opencode can only try its vendor's model service;
      // Grove's egress proxy refused those attempts (the profile lists only the fake API) and
      // they are the only ones; nothing reached the refusing proxy.
      expect(proxy.attempts.slice(before)).toEqual([]);
      const tried = (await messages(api, failedSessionId)).filter((m) => m.role === "system" && m.text.startsWith("blocked: ")).map((m) => m.text);
      expect(tried.length).toBeGreaterThan(0);
      expect(
        tried.every((t) => /^blocked: ([a-z0-9-]+\.)*opencode\.ai:443$/.test(t)),
        tried.join("; "),
      ).toBe(true);
    } finally {
      restoreHome();
      await server.close();
      rmSync(bare, { recursive: true, force: true });
    }
  }, 300_000);

  it("SBX-1 SBX-2 SBX-5: from opencode's own bash tool every attack of the shared table fails and nothing changes (blocked notes, mode kept); an edit, node, npm test and git commit by the agent work and Changes equal git", async () => {
    await attacksFailAndWorkWorks(
      server,
      {
        script: (tools, text) => (fake.script = toolSequence(lastIsToolMessage, tools, text)),
        shell: (command) => ({ name: "bash", input: { command, description: "run a command" } }),
        write: (filePath, content) => ({ name: "write", input: { filePath, content } }),
        askMode: "build",
        autoMode: "plan",
      },
      agentHome,
    );
  }, 400_000);

  it("0 connections outside loopback (every attempt through the proxy is refused and counted)", () => {
    expect(fake.main.length).toBeGreaterThan(0);
    expect(proxy.attempts).toEqual([]);
  });
});
