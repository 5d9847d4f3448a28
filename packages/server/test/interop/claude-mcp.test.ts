import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor, waitForSession } from "../fixture/server.js";
import { repoAndTask } from "../fixture/scenario.js";
import { ensureBridge } from "./bridges.js";
import { contentText, FakeAnthropic, lastIsToolResult, type ModelReply, type SeenRequest } from "./fake-anthropic.js";
import { agentNetworkEnv, InteropServer, RefusingProxy, setEnv, type Api } from "./harness.js";
import { answerInPageInbox } from "./inbox-page.js";

/**
 * MCP-1 with the real Claude Code ACP bridge, confined, against the fake Anthropic API: the
 * `grove` stdio MCP server every session is handed reaches the model as `mcp__grove__<tool>`
 * tools, and the scripted model's calls of them run through the bridge, the shim and Grove's
 * gateway: what the tool answers is in the model's next request.
 */
const fake = new FakeAnthropic(() => ({ text: "nothing scripted" }));
const proxy = new RefusingProxy();
let restoreEnv = () => undefined as void;
let agentHome = "";

beforeAll(async () => {
  await ensureBridge("claude");
  await fake.start();
  await proxy.start();
  agentHome = mkdtempSync(join(tmpdir(), "grove-claude-mcp-home-"));
  restoreEnv = setEnv({
    HOME: agentHome,
    CLAUDE_CONFIG_DIR: join(agentHome, ".claude"),
    ANTHROPIC_BASE_URL: fake.url,
    ANTHROPIC_API_KEY: "sk-ant-fake-key",
    ...agentNetworkEnv("claude", proxy.url),
  });
}, 600_000);

afterAll(async () => {
  restoreEnv();
  await fake.close();
  await proxy.close();
  rmSync(agentHome, { recursive: true, force: true });
});

function lastUserText(req: SeenRequest): string {
  return contentText(req.body.messages?.at(-1)?.content);
}

/** How many tool results the conversation holds (the model's tool calls that ran). */
function toolResults(req: SeenRequest): number {
  return (req.body.messages ?? []).filter((m) => Array.isArray(m.content) && m.content.some((b: { type?: string }) => b.type === "tool_result")).length;
}

/**
 * The model's script for the person's prompt `prompt`: Claude Code offers MCP tools deferred
 * behind its `ToolSearch` tool, so the model first loads `mcp__grove__<tool>` with it, then
 * calls it, then answers `text` once its result came back; anything else (side requests,
 * suggestions) gets text.
 */
function callThenText(prompt: string, tool: string, input: Record<string, unknown>, text: string): (req: SeenRequest) => ModelReply {
  return (req) => {
    const msgs = req.body.messages ?? [];
    const at = msgs.findLastIndex((m) => m.role === "user" && contentText(m.content).includes(prompt));
    if (at < 0 || contentText(msgs.at(-1)?.content).includes("[SUGGESTION MODE")) return { text: "ok" };
    // Tool results of this prompt's turn only (an earlier turn may have loaded and called others).
    const n = toolResults({ ...req, body: { ...req.body, messages: msgs.slice(at) } });
    if (n === 0) return { toolUse: { name: "ToolSearch", input: { query: `select:mcp__grove__${tool}`, max_results: 1 } } };
    if (n === 1) return { toolUse: { name: `mcp__grove__${tool}`, input } };
    return { text };
  };
}

/** The first main request after the grove tool of `prompt`'s turn ran: its result as the model was shown it. */
function toolResultSeen(prompt?: string): string | undefined {
  const r = fake.main.find((m) => {
    const msgs = m.body.messages ?? [];
    const at = prompt ? msgs.findLastIndex((x) => x.role === "user" && contentText(x.content).includes(prompt)) : 0;
    return at >= 0 && toolResults({ ...m, body: { ...m.body, messages: msgs.slice(at) } }) >= 2 && lastIsToolResult(m);
  });
  return r ? lastUserText(r) : undefined;
}

/** Waits for `cond`, allowing any permission the bridge asks on the way (whether MCP calls ask is the bridge's mode, not what is tested here). */
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

describe("MCP-1 interop: the real Claude bridge calls Grove's MCP tools (fake Anthropic API)", () => {
  const server = new InteropServer("claude", { modelUrl: () => fake.url, home: () => agentHome });

  it("MCP-1 the grove server's tools are offered to the model as mcp__grove__*; task_get's answer (the task's title and brief) is in the model's next request", async () => {
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
      const s = await srv.api("POST", `/tasks/${t.body.id}/sessions`, { agent: "claude", prompt: "Read your task." });
      expect(s.status, JSON.stringify(s.body)).toBe(201);
      const sid = s.body.id as string;
      const seen = await allowingUntil(srv.api, sid, toolResultSeen, "the model's request after task_get");
      // Loaded through ToolSearch, the grove tool is offered by name from then on.
      const offered = fake.main.flatMap((r) => (r.body.tools ?? []).map((x) => x.name));
      expect(offered).toContain("mcp__grove__task_get");
      expect(seen).toContain("Polish the lantern");
      expect(seen).toContain("BRIEF-LANTERN-7: make it glow");
      await waitForSession(srv.api, sid, ["waiting_for_input"], 120_000);
    } finally {
      await server.close();
    }
  }, 300_000);

  it("MCP-3 ask_user with choices: the question shows in the page's inbox (Chromium), the person answers there, and the answer is in the model's next request", async () => {
    try {
      fake.requests.length = 0;
      fake.script = callThenText("Ask me a colour.", "ask_user", { question: "Blue or red?", choices: ["blue", "red"] }, "You chose.");
      const { sid, api, url } = await server.launch("Ask me a colour.");
      const item = await allowingUntil(
        api,
        sid,
        async () =>
          ((await api("GET", "/inbox")).body as { id: string; kind: string; detail?: string; choices?: string[] }[]).find((i) => i.kind === "question"),
        "the question in the inbox",
      );
      expect(item).toMatchObject({ detail: "Blue or red?", choices: ["blue", "red"] });
      expect(toolResultSeen()).toBeUndefined(); // the call waits for the person
      await answerInPageInbox(url, { taskTitle: "Fix the widget", question: "Blue or red?", choices: ["blue", "red"], choice: "red" });
      const seen = await allowingUntil(api, sid, toolResultSeen, "the model's request after ask_user");
      expect(seen).toMatch(/"answer":\s*"red"/);
      await waitForSession(api, sid, ["waiting_for_input"], 120_000);
    } finally {
      await server.close();
    }
  }, 300_000);

  it("MCP-3 subtask_create through the bridge makes a child with parentId that starts with the named profile; the parent then reads the child's Changes with subtask_get", async () => {
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
      // The child started at once with the named profile and did its work.
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

  it("MCP-3 Claude's AskUserQuestion reaches Grove as an ACP form elicitation: an inbox question with the options; the person's pick is in the model's next request", async () => {
    try {
      fake.requests.length = 0;
      const prompt = "Ask me which database.";
      fake.script = (req) => {
        const msgs = req.body.messages ?? [];
        const at = msgs.findLastIndex((m) => m.role === "user" && contentText(m.content).includes(prompt));
        if (at < 0 || contentText(msgs.at(-1)?.content).includes("[SUGGESTION MODE")) return { text: "ok" };
        if (toolResults({ ...req, body: { ...req.body, messages: msgs.slice(at) } }) > 0) return { text: "Noted." };
        return {
          toolUse: {
            name: "AskUserQuestion",
            input: {
              questions: [
                {
                  question: "Which database?",
                  header: "Database",
                  multiSelect: false,
                  options: [
                    { label: "PostgreSQL", description: "a server" },
                    { label: "SQLite", description: "a file" },
                  ],
                },
              ],
            },
          },
        };
      };
      const { sid, api } = await server.launch(prompt);
      const item = await allowingUntil(
        api,
        sid,
        async () =>
          ((await api("GET", "/inbox")).body as { id: string; kind: string; sessionId?: string; detail?: string; choices?: string[] }[]).find(
            (i) => i.kind === "question" && i.sessionId === sid,
          ),
        "the elicitation's question in the inbox",
      );
      expect(fake.main.flatMap((r) => (r.body.tools ?? []).map((x) => x.name))).toContain("AskUserQuestion");
      expect(item).toMatchObject({ detail: "Which database?\nDatabase", choices: ["PostgreSQL", "SQLite"] });
      expect((await api("POST", `/inbox/${item.id}/answer`, { answer: "SQLite" })).status).toBe(200);
      const seen = await allowingUntil(
        api,
        sid,
        () => {
          const r = fake.main.find((m) => lastIsToolResult(m) && contentText(m.body.messages?.at(-1)?.content).includes("Which database?"));
          return r ? lastUserText(r) : undefined;
        },
        "the model's request after AskUserQuestion",
      );
      expect(seen).toContain("SQLite");
      expect(seen).not.toContain('PostgreSQL"');
      await waitForSession(api, sid, ["waiting_for_input"], 120_000);
    } finally {
      await server.close();
    }
  }, 300_000);

  it("no traffic left loopback", () => {
    expect(proxy.attempts).toEqual([]);
  });
});
