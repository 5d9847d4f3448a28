import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runGrove } from "../cli/run-cli.js";
import { waitForSession } from "../fixture/server.js";
import { ensureBridge } from "./bridges.js";
import { attacksFailAndWorkWorks, toolSequence } from "./confinement.js";
import type { ModelReply } from "./fake-anthropic.js";
import { FakeGemini, geminiTexts, lastIsFunctionResponse, type GeminiRequest } from "./fake-gemini.js";
import { agentNetworkEnv, InteropServer, pendingAsk, RefusingProxy, setEnv } from "./harness.js";
import { authFixWorks, cancelEndsTurnFast, killRestartResume, writeLandsInWorktree } from "./harness-scenarios.js";

/**
 * AG-3 interop suite, second agent: the real Gemini CLI in ACP mode (`gemini --acp`,
 * pinned, installed with npm into the interop cache; an install failure fails the suite) driven
 * by Grove against a fake Gemini API on loopback. The built-in `gemini` profile as shipped: its
 * own HOME, the model's address (`GOOGLE_GEMINI_BASE_URL`, which makes Gemini CLI authenticate
 * as a gateway) and a key in the environment, and a proxy that refuses and counts every attempt
 * to reach anything else. The one file in its HOME is the person's privacy choice (usage
 * statistics off: Gemini CLI has no variable for it); nothing about permissions or modes.
 */
const fake = new FakeGemini(() => ({ text: "nothing scripted" }));
const proxy = new RefusingProxy();
let restoreEnv = () => undefined as void;
let agentHome = "";

function toolThenText(tool: { name: string; input: Record<string, unknown> }, text: string): (req: GeminiRequest) => ModelReply {
  return (req) => (lastIsFunctionResponse(req) ? { text } : { toolUse: tool });
}

beforeAll(async () => {
  await ensureBridge("gemini");
  await fake.start();
  await proxy.start();
  agentHome = mkdtempSync(join(tmpdir(), "grove-gemini-home-"));
  mkdirSync(join(agentHome, ".gemini"));
  writeFileSync(join(agentHome, ".gemini", "settings.json"), JSON.stringify({ privacy: { usageStatisticsEnabled: false } }));
  restoreEnv = setEnv({ HOME: agentHome, GOOGLE_GEMINI_BASE_URL: fake.url, GEMINI_API_KEY: "fake-gemini-key", ...agentNetworkEnv("gemini", proxy.url) });
}, 600_000);

afterAll(async () => {
  restoreEnv();
  await fake.close();
  await proxy.close();
  rmSync(agentHome, { recursive: true, force: true });
});

describe("interop: Gemini CLI (ACP) against a fake Gemini API (AG-3)", () => {
  // SBX-1/SBX-2: confined, the fake API on its allow-list.
  const server = new InteropServer("gemini", { modelUrl: () => fake.url, home: () => agentHome });

  it("AG-2 SES-5 CHG-1 policy ask in the default configuration: write_file asks Grove (answered by API), lands in the worktree only, one row per tool call ending completed, Changes equal git", async () => {
    try {
      await writeLandsInWorktree(server, {
        script: (target) =>
          (fake.script = toolThenText({ name: "write_file", input: { file_path: target, content: "hello from gemini\n" } }, "I wrote hello.txt.")),
        doneText: "I wrote hello.txt.",
        agentHome,
        expectMode: "default",
      });
    } finally {
      await server.close();
    }
  }, 240_000);

  it("AG-2 CLI: an edit (replace) and a shell command ask too and are answered with `grove session answer`; `session show` prints tool status and the pending request", async () => {
    try {
      const { sid, worktree, api, url } = await server.launch();
      writeFileSync(join(worktree, "notes.txt"), "old line\n");
      let step = 0;
      fake.script = (req) => {
        if (!lastIsFunctionResponse(req)) step = 0;
        step++;
        if (step === 1)
          return {
            toolUse: {
              name: "replace",
              input: { file_path: join(worktree, "notes.txt"), old_string: "old line", new_string: "new line", instruction: "update the line" },
            },
          };
        if (step === 2) return { toolUse: { name: "run_shell_command", input: { command: "echo from-shell > shell.txt", description: "write shell.txt" } } };
        return { text: "Edited and ran." };
      };
      expect((await api("POST", `/sessions/${sid}/prompt`, { prompt: "edit notes.txt, then run a command" })).status).toBe(202);
      for (const kind of ["edit", "execute"]) {
        const ask = await pendingAsk(api, sid);
        expect(ask.toolKind).toBe(kind);
        const show = await runGrove(["session", "show", sid, "--server", url]);
        expect(show.code).toBe(0);
        expect(show.stdout).toContain(`permission ${ask.requestId}`);
        const answered = await runGrove(["session", "answer", sid, ask.requestId, "allow", "--server", url]);
        expect(answered.code, answered.stderr).toBe(0);
        await waitForSession(api, sid, ["running", "waiting_for_input"], 10_000);
        // The next ask must be a new one (the answered one is gone).
        await expect
          .poll(async () => ((await api("GET", `/sessions/${sid}/permissions`)).body as { requestId: string }[]).some((p) => p.requestId === ask.requestId), {
            timeout: 10_000,
          })
          .toBe(false);
      }
      await waitForSession(api, sid, ["waiting_for_input"], 60_000);
      expect(readFileSync(join(worktree, "notes.txt"), "utf8")).toBe("new line\n");
      expect(readFileSync(join(worktree, "shell.txt"), "utf8")).toBe("from-shell\n");
      const after = await runGrove(["session", "show", sid, "--server", url]);
      expect(after.stdout).toMatch(/tool \[completed\]/);
      expect(after.stdout).not.toMatch(/tool \[(pending|in_progress)\]/);
    } finally {
      await server.close();
    }
  }, 240_000);

  it("AG-1 cancel mid-stream and during a running shell command ends the turn within 2 s with every tool row closed", async () => {
    try {
      await cancelEndsTurnFast(server, {
        streamSlowly: (text) => (fake.script = () => ({ text, chunks: 300, chunkDelayMs: 100 })),
        runForever: () =>
          (fake.script = toolThenText({ name: "run_shell_command", input: { command: "tail -f /dev/null", description: "wait for input" } }, "slept")),
      });
    } finally {
      await server.close();
    }
  }, 240_000);

  it("AG-1 SES-6 kill -9 of the server mid-turn → restart marks the interrupted turn → the next prompt resumes with session/load in the same cwd and the model sees the history", async () => {
    await killRestartResume(
      "gemini",
      {
        streamSlowly: (text) => (fake.script = () => ({ text, chunks: 600, chunkDelayMs: 100 })),
        answer: (text) => (fake.script = () => ({ text })),
        mainCount: () => fake.main.length,
        userTextsSince: (i) =>
          fake.main
            .slice(i)
            .map((r) => geminiTexts(r, "user"))
            .join("\n"),
      },
      { modelUrl: () => fake.url, home: () => agentHome },
    );
  }, 400_000);

  it("AG-3 Gemini CLI with no credentials fails with agent_auth_required naming the fix; setting GEMINI_API_KEY (and the gateway) as it says makes the next session work", async () => {
    try {
      await authFixWorks(server, "gemini", {
        withoutCredentials: () => setEnv({ GEMINI_API_KEY: undefined, GOOGLE_GEMINI_BASE_URL: undefined }),
        mentions: ["GEMINI_API_KEY"],
        follow: () => void setEnv({ GEMINI_API_KEY: "fake-gemini-key", GOOGLE_GEMINI_BASE_URL: fake.url }),
        answer: (text) => (fake.script = () => ({ text })),
        sawPrompt: (text) => fake.main.some((r) => geminiTexts(r, "user").includes(text)),
      });
    } finally {
      await server.close();
    }
  }, 300_000);

  it("SBX-1 SBX-2 SBX-5: from Gemini CLI's own shell tool every attack of the shared table fails and nothing changes (blocked notes, mode kept); an edit, node, npm test and git commit by the agent work and Changes equal git", async () => {
    await attacksFailAndWorkWorks(
      server,
      {
        script: (tools, text) => (fake.script = toolSequence(lastIsFunctionResponse, tools, text)),
        shell: (command) => ({ name: "run_shell_command", input: { command, description: "run a command" } }),
        write: (file_path, content) => ({ name: "write_file", input: { file_path, content } }),
        askMode: "default",
        autoMode: "yolo",
      },
      agentHome,
    );
  }, 400_000);

  it("AG-3 SBX-2: no traffic left loopback (every attempt through the proxy is refused and counted)", () => {
    expect(fake.main.length).toBeGreaterThan(0);
    expect(proxy.attempts).toEqual([]);
  });
});
