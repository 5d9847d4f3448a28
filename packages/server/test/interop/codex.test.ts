import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitForSession } from "../fixture/server.js";
import { ensureBridge } from "./bridges.js";
import { attacksFailAndWorkWorks, toolSequence } from "./confinement.js";
import type { ModelReply } from "./fake-model-api.js";
import { FakeOpenAiResponses, lastIsToolOutput, responsesTexts, type ResponsesRequest } from "./fake-openai-responses.js";
import { agentNetworkEnv, InteropServer, RefusingProxy, setEnv } from "./harness.js";
import { authFixWorks, cancelEndsTurnFast, killRestartResume, shellAskAnsweredByCli, writeLandsInWorktree } from "./harness-scenarios.js";

/**
 * Interop suite, third agent: the real Codex ACP bridge (`@zed-industries/codex-acp`, pinned,
 * installed with npm into the interop cache; an install failure fails the suite) driven by Grove
 * against a fake OpenAI Responses API on loopback. The built-in `codex` profile as shipped: its
 * own HOME and CODEX_HOME, a key in the environment (Grove signs Codex in with it through ACP
 * `authenticate`), the refusing proxy. Codex has no variable for its endpoint (OPENAI_BASE_URL is
 * ignored), so `$CODEX_HOME/config.toml` holds the person's choice of endpoint and model
 * (`openai_base_url`, `model`); nothing about permissions or modes: `ask` asks in its `read-only`.
 */
const fake = new FakeOpenAiResponses(() => ({ text: "nothing scripted" }));
const proxy = new RefusingProxy();
let restoreEnv = () => undefined as void;
let agentHome = "";

function toolThenText(tool: { name: string; input: Record<string, unknown> }, text: string): (req: ResponsesRequest) => ModelReply {
  return (req) => (lastIsToolOutput(req) ? { text } : { toolUse: tool });
}

beforeAll(async () => {
  await ensureBridge("codex");
  await fake.start();
  await proxy.start();
  // Outside /tmp: codex's own command sandbox (a nested bwrap) gives commands a fresh /tmp, which
  // would hide the helper links codex keeps under $CODEX_HOME. Not under the checkout either: a
  // clone may itself live under /tmp (CI clones into mktemp -d).
  const root = "/var/tmp";
  agentHome = mkdtempSync(join(root, "codex-home-"));
  mkdirSync(join(agentHome, ".codex"));
  // gpt-5.5: a model codex knows, so it offers its own tools (apply_patch) without a models fetch.
  writeFileSync(join(agentHome, ".codex", "config.toml"), `model = "gpt-5.5"\nopenai_base_url = "${fake.url}/v1"\n`);
  restoreEnv = setEnv({ HOME: agentHome, CODEX_HOME: join(agentHome, ".codex"), OPENAI_API_KEY: "sk-fake-openai-key", ...agentNetworkEnv("codex", proxy.url) });
}, 600_000);

afterAll(async () => {
  restoreEnv();
  await fake.close();
  await proxy.close();
  rmSync(agentHome, { recursive: true, force: true });
});

describe("interop: Codex (codex-acp) against a fake OpenAI Responses API", () => {
  // SBX-1/SBX-2: confined, the fake API on its allow-list. Its shell commands ask for escalation
  // (they run outside codex's own read-only sandbox, still inside Grove's).
  const server = new InteropServer("codex", { modelUrl: () => fake.url, home: () => agentHome });

  it("AG-2 SES-5 CHG-1 policy ask in the default configuration: apply_patch asks Grove (answered by API), lands in the worktree only, one row per tool call ending completed, Changes equal git", async () => {
    try {
      await writeLandsInWorktree(server, {
        script: () =>
          (fake.script = toolThenText(
            { name: "apply_patch", input: { input: "*** Begin Patch\n*** Add File: hello.txt\n+hello from codex\n*** End Patch\n" } },
            "I wrote hello.txt.",
          )),
        doneText: "I wrote hello.txt.",
        agentHome,
        expectMode: "read-only",
      });
      // AG-3: the key reached the model because Grove sent ACP authenticate with it.
      expect(fake.main.at(-1)?.auth).toBe("Bearer sk-fake-openai-key");
    } finally {
      await server.close();
    }
  }, 240_000);

  it("AG-2 CLI: a shell command asks too and is answered with `grove session answer … allow`; `session show` prints tool status and the pending request", async () => {
    try {
      await shellAskAnsweredByCli(server, {
        script: () =>
          (fake.script = toolThenText(
            { name: "exec_command", input: { cmd: "echo from-shell > shell.txt", sandbox_permissions: "require_escalated", justification: "write shell.txt" } },
            "Ran it.",
          )),
        file: "shell.txt",
        content: "from-shell\n",
      });
    } finally {
      await server.close();
    }
  }, 240_000);

  it("SBX-1: codex's own read-only command sandbox nests inside Grove's: an unescalated read runs without an ask and its output reaches the model", async () => {
    try {
      const { sid, api } = await server.launch();
      fake.script = toolThenText({ name: "exec_command", input: { cmd: "cat README.md" } }, "Read it.");
      expect((await api("POST", `/sessions/${sid}/prompt`, { prompt: "read the readme" })).status).toBe(202);
      await waitForSession(api, sid, ["waiting_for_input"], 60_000);
      expect(responsesTexts(fake.main.at(-1)!, "tool")).toContain("# test repo");
    } finally {
      await server.close();
    }
  }, 240_000);

  it("AG-1 cancel mid-stream and during a running shell command ends the turn within 2 s with every tool row closed", async () => {
    try {
      await cancelEndsTurnFast(server, {
        streamSlowly: (text) => (fake.script = () => ({ text, chunks: 300, chunkDelayMs: 100 })),
        runForever: () =>
          (fake.script = toolThenText(
            { name: "exec_command", input: { cmd: "tail -f /dev/null", sandbox_permissions: "require_escalated", justification: "wait for input" } },
            "slept",
          )),
      });
    } finally {
      await server.close();
    }
  }, 240_000);

  it("AG-1 SES-6 kill -9 of the server mid-turn → restart marks the interrupted turn → the next prompt resumes with session/load in the same cwd and the model sees the history", async () => {
    await killRestartResume(
      "codex",
      {
        streamSlowly: (text) => (fake.script = () => ({ text, chunks: 600, chunkDelayMs: 100 })),
        answer: (text) => (fake.script = () => ({ text })),
        mainCount: () => fake.main.length,
        userTextsSince: (i) =>
          fake.main
            .slice(i)
            .map((r) => responsesTexts(r))
            .join("\n"),
      },
      { modelUrl: () => fake.url, home: () => agentHome },
    );
  }, 400_000);

  it("AG-3 Codex with no key fails at start with agent_auth_required naming the fix; setting OPENAI_API_KEY as it says makes the next session work", async () => {
    // A person who never signed Codex in: a CODEX_HOME with the endpoint but no auth.json (an
    // `authenticate` is remembered there, so the other tests' home would still be signed in).
    const fresh = mkdtempSync(join(tmpdir(), "grove-codex-fresh-"));
    writeFileSync(join(fresh, "config.toml"), `model = "gpt-5.5"\nopenai_base_url = "${fake.url}/v1"\n`);
    const restoreHome = setEnv({ CODEX_HOME: fresh });
    try {
      await authFixWorks(server, "codex", {
        withoutCredentials: () => setEnv({ OPENAI_API_KEY: undefined, CODEX_API_KEY: undefined }),
        mentions: ["OPENAI_API_KEY", "openai_base_url", "OPENAI_BASE_URL has no effect"],
        follow: () => void setEnv({ CODEX_API_KEY: "sk-fake-codex-key" }),
        answer: (text) => (fake.script = () => ({ text })),
        sawPrompt: (text) => fake.main.some((r) => responsesTexts(r).includes(text) && r.auth === "Bearer sk-fake-codex-key"),
      });
    } finally {
      setEnv({ CODEX_API_KEY: undefined });
      restoreHome();
      await server.close();
      rmSync(fresh, { recursive: true, force: true });
    }
  }, 240_000);

  it("SBX-1 SBX-2 SBX-5: from Codex's own shell every attack of the shared table fails and nothing changes (blocked notes, mode kept); an edit, node, npm test and git commit by the agent work and Changes equal git", async () => {
    await attacksFailAndWorkWorks(
      server,
      {
        script: (tools, text) => (fake.script = toolSequence(lastIsToolOutput, tools, text)),
        shell: (cmd) => ({ name: "exec_command", input: { cmd, sandbox_permissions: "require_escalated", justification: "run a command" } }),
        write: (path, content) => ({
          name: "apply_patch",
          input: {
            input: `*** Begin Patch\n*** Add File: ${path}\n${content
              .split("\n")
              .filter((l, i, a) => i < a.length - 1 || l !== "")
              .map((l) => `+${l}`)
              .join("\n")}\n*** End Patch\n`,
          },
        }),
        askMode: "read-only",
        autoMode: "full-access",
      },
      agentHome,
    );
  }, 400_000);

  it("0 connections outside loopback (every attempt through the proxy is refused and counted)", () => {
    expect(fake.main.length).toBeGreaterThan(0);
    expect(proxy.attempts).toEqual([]);
  });
});
