import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor, waitForSession } from "../fixture/server.js";
import { repoAndTask } from "../fixture/scenario.js";
import { ensureBridge } from "./bridges.js";
import type { ModelReply } from "./fake-model-api.js";
import { FakeGemini, geminiTexts, lastIsFunctionResponse, type GeminiRequest } from "./fake-gemini.js";
import { agentNetworkEnv, InteropServer, RefusingProxy, setEnv, type Api } from "./harness.js";
import { answerInPageInbox } from "./inbox-page.js";

/**
 * MCP-1 with the real Gemini CLI (ACP mode), confined, against the fake Gemini API: the `grove`
 * stdio MCP server every session is handed reaches the model among the request's
 * `functionDeclarations`, and the scripted model's calls of them run through Gemini CLI, the
 * shim and Grove's gateway: what the tool answers is in the model's next request. No folder is
 * trusted in the agent's HOME: Grove's confined launch trusts the worktree and hides the
 * repository's own `.gemini/` from the agent.
 */
const fake = new FakeGemini(() => ({ text: "nothing scripted" }));
const proxy = new RefusingProxy();
let restoreEnv = () => undefined as void;
let agentHome = "";

beforeAll(async () => {
  await ensureBridge("gemini");
  await fake.start();
  await proxy.start();
  agentHome = mkdtempSync(join(tmpdir(), "grove-gemini-mcp-home-"));
  mkdirSync(join(agentHome, ".gemini"));
  writeFileSync(join(agentHome, ".gemini", "settings.json"), JSON.stringify({ privacy: { usageStatisticsEnabled: false } }));
  // No trustedFolders.json: Gemini CLI connects no MCP server in a folder it does not trust, and
  // Grove's confined launch is what trusts the worktree (agents/bridges.ts), not the person.
  restoreEnv = setEnv({ HOME: agentHome, GOOGLE_GEMINI_BASE_URL: fake.url, GEMINI_API_KEY: "fake-gemini-key", ...agentNetworkEnv("gemini", proxy.url) });
}, 600_000);

afterAll(async () => {
  restoreEnv();
  await fake.close();
  await proxy.close();
  rmSync(agentHome, { recursive: true, force: true });
});

/** Every function the request offers the model, by name. */
function offered(req: GeminiRequest): string[] {
  return (req.body.tools ?? []).flatMap((t) => (t.functionDeclarations ?? []).map((f) => f.name));
}

/** Gemini CLI offers an MCP server's tools as `mcp_<server>_<tool>`. */
function groveName(req: GeminiRequest, tool: string): string | undefined {
  return offered(req).find((n) => n === `mcp_grove_${tool}`);
}

/**
 * The model's script for the person's prompt `prompt`: call the grove `tool` as offered, then
 * answer `text` once its result came back.
 */
function callThenText(prompt: string, tool: string, input: Record<string, unknown>, text: string): (req: GeminiRequest) => ModelReply {
  return (req) => {
    if (!geminiTexts(req, "user").includes(prompt)) return { text: "ok" };
    if (lastIsFunctionResponse(req)) return { text };
    const name = groveName(req, tool);
    return name ? { toolUse: { name, input } } : { text: `no grove ${tool} offered` };
  };
}

/**
 * The first main request after the grove tool ran (in `prompt`'s turn, when given: an earlier
 * turn's call does not count): its result as the model was shown it.
 */
function toolResultSeen(prompt?: string): string | undefined {
  const r = fake.main.find((m) => {
    if (!lastIsFunctionResponse(m)) return false;
    if (prompt === undefined) return true;
    const contents = m.body.contents ?? [];
    const at = contents.findLastIndex((c) => c.role === "user" && (c.parts ?? []).some((p) => p.text?.includes(prompt)));
    return at >= 0 && contents.slice(at).some((c) => (c.parts ?? []).some((p) => p.functionResponse !== undefined));
  });
  return r ? JSON.stringify(r.body.contents?.at(-1)) : undefined;
}

/** Waits for `cond`, allowing any permission Gemini CLI asks on the way (whether MCP calls ask is its mode, not what is tested here). */
async function allowingUntil<T>(api: Api, sid: string, cond: () => Promise<T | undefined> | T | undefined, what: string): Promise<T> {
  return waitFor(
    async () => {
      const asks = (await api("GET", `/sessions/${sid}/permissions`)).body as { requestId: string; options: { optionId: string; kind: string }[] }[];
      for (const a of asks)
        await api("POST", `/sessions/${sid}/permissions/${a.requestId}`, { optionId: a.options.find((o) => o.kind === "allow_once")!.optionId });
      return cond();
    },
    what,
    120_000,
  );
}

describe("MCP-1 interop: the real Gemini CLI calls Grove's MCP tools (fake Gemini API)", () => {
  const server = new InteropServer("gemini", { modelUrl: () => fake.url, home: () => agentHome });

  it("MCP-1 the grove server's tools are offered in functionDeclarations; task_get's answer (the task's title and brief) is in the model's next request", async () => {
    try {
      const srv = await server.bare();
      const { repository } = await repoAndTask(srv, { title: "Unused" });
      const t = await srv.api("POST", "/tasks", {
        title: "Polish the lantern",
        description: "BRIEF-LANTERN-7: make it glow",
        repositories: [{ repositoryId: repository.id }],
      });
      expect(t.status, JSON.stringify(t.body)).toBe(201);
      fake.requests.length = 0;
      fake.script = callThenText("Read your task.", "task_get", {}, "I read the task.");
      const s = await srv.api("POST", `/tasks/${t.body.id}/sessions`, { agent: "gemini", prompt: "Read your task." });
      expect(s.status, JSON.stringify(s.body)).toBe(201);
      const sid = s.body.id as string;
      const seen = await allowingUntil(srv.api, sid, toolResultSeen, "the model's request after task_get");
      expect(offered(fake.main[0]!)).toContain("mcp_grove_task_get");
      expect(seen).toContain("Polish the lantern");
      expect(seen).toContain("BRIEF-LANTERN-7: make it glow");
      await waitForSession(srv.api, sid, ["waiting_for_input"], 120_000);
    } finally {
      await server.close();
    }
  }, 300_000);

  it("MCP-3 ask_user, served to Gemini CLI as ask_person (it hides tools named ask_user over ACP): the question shows in the page's inbox (Chromium), the person answers there, and the answer is in the model's next request", async () => {
    try {
      fake.requests.length = 0;
      fake.script = callThenText("Ask me a colour.", "ask_person", { question: "Blue or red?", choices: ["blue", "red"] }, "You chose.");
      const { sid, api, url } = await server.launch("Ask me a colour.");
      const item = await allowingUntil(
        api,
        sid,
        async () =>
          ((await api("GET", "/inbox")).body as { id: string; kind: string; detail?: string; choices?: string[] }[]).find((i) => i.kind === "question"),
        "the question in the inbox",
      );
      expect(offered(fake.main[0]!)).toContain("mcp_grove_ask_person");
      expect(offered(fake.main[0]!)).not.toContain("mcp_grove_ask_user");
      expect(item).toMatchObject({ detail: "Blue or red?", choices: ["blue", "red"] });
      expect(toolResultSeen()).toBeUndefined(); // the call waits for the person
      await answerInPageInbox(url, { taskTitle: "Fix the widget", question: "Blue or red?", choices: ["blue", "red"], choice: "red" });
      const seen = await allowingUntil(api, sid, toolResultSeen, "the model's request after ask_person");
      expect(seen).toMatch(/\\?"answer\\?":\s*\\?"red/);
      await waitForSession(api, sid, ["waiting_for_input"], 120_000);
    } finally {
      await server.close();
    }
  }, 300_000);

  it("MCP-1 the worktree is trusted by Grove's launch, not the repository: a .gemini/settings.json the repository brings (a hook, an MCP server) never runs, and the grove tools are offered", async () => {
    try {
      const srv = await server.bare();
      const hookRan = join(agentHome, "repo-hook-ran");
      const serverRan = join(agentHome, "repo-mcp-server-ran");
      const repoSettings = {
        hooks: {
          BeforeAgent: [{ hooks: [{ type: "command", command: `touch ${hookRan}` }] }],
          BeforeTool: [{ matcher: "*", hooks: [{ type: "command", command: `touch ${hookRan}` }] }],
        },
        mcpServers: { repo: { command: "/bin/sh", args: ["-c", `touch ${serverRan}`] } },
      };
      const { task } = await repoAndTask(srv, { title: "Polish the lantern", files: { ".gemini/settings.json": JSON.stringify(repoSettings) } });
      fake.requests.length = 0;
      fake.script = callThenText("Read your task.", "task_get", {}, "I read the task.");
      const s = await srv.api("POST", `/tasks/${task.id}/sessions`, { agent: "gemini", prompt: "Read your task." });
      expect(s.status, JSON.stringify(s.body)).toBe(201);
      const sid = s.body.id as string;
      const seen = await allowingUntil(srv.api, sid, toolResultSeen, "the model's request after task_get");
      expect(seen).toContain("Polish the lantern");
      await waitForSession(srv.api, sid, ["waiting_for_input"], 120_000);
      expect(offered(fake.main[0]!).some((n) => n.startsWith("mcp_repo_"))).toBe(false);
      expect(existsSync(hookRan)).toBe(false);
      expect(existsSync(serverRan)).toBe(false);
    } finally {
      await server.close();
    }
  }, 300_000);

  it("MCP-3 subtask_create through Gemini CLI makes a child with parentId that starts with the named profile and prompt; the child commits, and the parent's next turn reads the child's Changes (ahead 1) with subtask_get", async () => {
    try {
      fake.requests.length = 0;
      const childPrompt = "write docs/lantern.md how the lantern glows\ncommit lantern docs";
      fake.script = callThenText(
        "Split off the docs.",
        "subtask_create",
        { title: "Write the lantern docs", agent: "scripted", prompt: childPrompt },
        "Split.",
      );
      const { sid, api, taskId } = await server.launch("Split off the docs.");
      const seen = await allowingUntil(api, sid, () => toolResultSeen("Split off the docs."), "the model's request after subtask_create");
      const children = (await api("GET", `/tasks?parentId=${taskId}`)).body as { id: string; title: string; parentId: string }[];
      expect(children).toEqual([expect.objectContaining({ title: "Write the lantern docs", parentId: taskId })]);
      const childId = children[0]!.id;
      expect(seen).toContain(childId);
      await waitForSession(api, sid, ["waiting_for_input"], 120_000);
      // The child started at once with the named profile (not the parent's gemini) and did its work.
      const childSessions = (await api("GET", `/tasks/${childId}/sessions`)).body as { id: string; agent: string }[];
      expect(childSessions.map((c) => c.agent)).toEqual(["scripted"]);
      await waitForSession(api, childSessions[0]!.id, ["waiting_for_input"], 60_000);

      fake.script = callThenText("Read the child.", "subtask_get", { taskId: childId }, "Read it.");
      expect((await api("POST", `/sessions/${sid}/prompt`, { prompt: "Read the child." })).status).toBe(202);
      const got = await allowingUntil(api, sid, () => toolResultSeen("Read the child."), "the model's request after subtask_get");
      expect(got).toContain(childId);
      expect(got).toContain("docs/lantern.md");
      expect(got).toMatch(/\\?"ahead\\?":\s*1/);
      await waitForSession(api, sid, ["waiting_for_input"], 120_000);
    } finally {
      await server.close();
    }
  }, 300_000);

  it("no traffic left loopback", () => {
    expect(proxy.attempts).toEqual([]);
  });
});
