import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase } from "../fixture/db.js";
import { repoAndTask } from "../fixture/scenario.js";
import { apiClient, spawnServer, startTestServer, waitFor, waitForSession, type TestServer } from "../fixture/server.js";
import { runGrove } from "../cli/run-cli.js";
import { ensureBridge, linkBridge } from "./bridges.js";
import { contentText, FakeAnthropic, lastIsToolResult, type ModelReply, type SeenRequest } from "./fake-anthropic.js";

/**
 * Issue 10 interop suite: the real Claude Code ACP bridge (pinned, installed with npm into the
 * interop cache; an install failure fails the suite) driven by Grove against a fake Anthropic
 * Messages API on loopback. No hand-written agent settings: the built-in `claude` profile as
 * shipped, its own HOME, the model's address and a key in the environment, and a proxy that
 * refuses and counts every attempt to reach anything else.
 */
type Msg = { role: string; text: string; data?: { toolCallId?: string; status?: string } };

const fake = new FakeAnthropic(() => ({ text: "nothing scripted" }));
let proxy: Server;
const proxyAttempts: string[] = [];
const saved: Record<string, string | undefined> = {};
let agentHome = "";

/** What the Claude bridge and Claude Code see: the fake model, a refusing proxy for everything else. */
function agentEnv(proxyUrl: string): Record<string, string> {
  return {
    HOME: agentHome,
    CLAUDE_CONFIG_DIR: join(agentHome, ".claude"),
    ANTHROPIC_BASE_URL: fake.url,
    ANTHROPIC_API_KEY: "sk-ant-fake-key",
    HTTPS_PROXY: proxyUrl,
    HTTP_PROXY: proxyUrl,
    https_proxy: proxyUrl,
    http_proxy: proxyUrl,
    NO_PROXY: "127.0.0.1,localhost",
    no_proxy: "127.0.0.1,localhost",
    // Telemetry and update checks would otherwise try api.anthropic.com through the proxy.
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
  };
}

async function messages(api: TestServer["api"], sid: string): Promise<Msg[]> {
  return (await api("GET", `/sessions/${sid}/messages`)).body as Msg[];
}

/** Waits for one pending permission request of the session; returns it. */
async function pendingAsk(api: TestServer["api"], sid: string) {
  return waitFor(async () => {
    const p = (await api("GET", `/sessions/${sid}/permissions`)).body as { requestId: string; title: string; toolKind?: string; options: { optionId: string; kind: string }[] }[];
    return p[0];
  }, "a permission request", 60_000);
}

function userTexts(req: SeenRequest): string {
  return (req.body.messages ?? []).filter((m) => m.role === "user").map((m) => contentText(m.content)).join("\n");
}

/** The model's script for one test: a tool call when the person asks, then a text answer. */
function toolThenText(tool: { name: string; input: Record<string, unknown> }, text: string): (req: SeenRequest) => ModelReply {
  return (req) => (lastIsToolResult(req) ? { text } : { toolUse: tool });
}

function gitStatus(dir: string): string {
  return execFileSync("git", ["status", "--porcelain", "--untracked-files=all"], { cwd: dir, encoding: "utf8" });
}

beforeAll(async () => {
  await ensureBridge("claude");
  await fake.start();
  proxy = createServer((s) => {
    s.once("data", (d) => proxyAttempts.push(d.toString("utf8").split("\r\n")[0] ?? "?"));
    setTimeout(() => s.destroy(), 50);
  });
  await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
  agentHome = mkdtempSync(join(tmpdir(), "grove-claude-home-"));
  const env = agentEnv(`http://127.0.0.1:${(proxy.address() as { port: number }).port}`);
  // The in-process server's agents inherit this process's environment (pool: forks).
  for (const [k, v] of Object.entries(env)) {
    saved[k] = process.env[k];
    process.env[k] = v;
  }
}, 600_000);

afterAll(async () => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  await fake.close();
  await new Promise<void>((r) => proxy.close(() => r()));
  rmSync(agentHome, { recursive: true, force: true });
});

describe("interop: Claude Code ACP bridge against a fake Anthropic API (issue 10)", () => {
  let srv: TestServer | undefined;
  const launch = async (prompt?: string) => {
    const db = await freshDatabase("sqlite");
    linkBridge(db.home, "claude");
    srv = await startTestServer("sqlite", db);
    const { task, repo } = await repoAndTask(srv);
    const s = await srv.api("POST", `/tasks/${task.id}/sessions`, { agent: "claude", ...(prompt ? { prompt } : {}) });
    expect(s.status, JSON.stringify(s.body)).toBe(201);
    expect(s.body.lastError).toBeNull();
    const ws = (await srv.api("GET", `/sessions/${s.body.id}/workspace`)).body;
    return { sid: s.body.id as string, taskId: task.id as string, worktree: ws.workspacePath as string, repoPath: repo.path as string, api: srv.api, url: srv.url };
  };
  const closeServer = async () => {
    await srv?.close();
    srv = undefined;
  };

  it("AG-2 SES-5 CHG-1 policy ask in the default configuration: the Write asks Grove (answered by API), lands in the worktree only, one row per tool call ending completed, Changes equal git", async () => {
    try {
      const { sid, taskId, worktree, repoPath, api } = await launch();
      expect((await api("GET", `/sessions/${sid}`)).body.modes.currentModeId).toBe("default");
      const target = join(worktree, "hello.txt");
      fake.script = toolThenText({ name: "Write", input: { file_path: target, content: "hello from claude\n" } }, "I wrote hello.txt.");
      expect((await api("POST", `/sessions/${sid}/prompt`, { prompt: "Please create hello.txt" })).status).toBe(202);
      const ask = await pendingAsk(api, sid);
      expect(ask.toolKind).toBe("edit");
      expect(existsSync(target)).toBe(false); // nothing written before the person allowed it
      const allow = ask.options.find((o) => o.kind === "allow_once")!;
      expect((await api("POST", `/sessions/${sid}/permissions/${ask.requestId}`, { optionId: allow.optionId })).status).toBe(204);
      await waitForSession(api, sid, ["waiting_for_input"], 60_000);
      expect(existsSync(target)).toBe(true);
      expect(gitStatus(repoPath)).toBe("");
      expect(existsSync(join(agentHome, "hello.txt"))).toBe(false);
      const tools = (await messages(api, sid)).filter((m) => m.role === "tool");
      expect(tools.length).toBeGreaterThan(0);
      expect(new Set(tools.map((t) => t.data?.toolCallId)).size).toBe(tools.length);
      expect(tools.every((t) => t.data?.status === "completed")).toBe(true);
      expect((await messages(api, sid)).some((m) => m.role === "agent" && m.text.includes("I wrote hello.txt."))).toBe(true);
      const changes = (await api("GET", `/tasks/${taskId}/changes`)).body;
      const files = changes.repositories[0].files.map((f: { path: string; status: string }) => `${f.status} ${f.path}`);
      expect(files).toEqual(gitStatus(worktree).trim().split("\n").map((l) => `untracked ${l.slice(3)}`));
    } finally {
      await closeServer();
    }
  }, 240_000);

  it("AG-2 CLI: a Bash tool call asks too and is answered with `grove session answer … allow`; `session show` prints tool status and the pending request", async () => {
    try {
      const { sid, worktree, api, url } = await launch();
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
      expect(execFileSync("cat", [join(worktree, "bash.txt")], { encoding: "utf8" })).toBe("from-bash\n");
      const after = await runGrove(["session", "show", sid, "--server", url]);
      expect(after.stdout).toMatch(/tool \[completed\]/);
    } finally {
      await closeServer();
    }
  }, 240_000);

  it("AG-1 cancel mid-stream and during a running tool ends the turn within 2 s with every tool row closed", async () => {
    try {
      const { sid, api } = await launch();
      fake.script = () => ({ text: "streaming slowly", chunks: 300, chunkDelayMs: 100 });
      expect((await api("POST", `/sessions/${sid}/prompt`, { prompt: "talk for a long time" })).status).toBe(202);
      await waitFor(async () => (await messages(api, sid)).some((m) => m.role === "agent" && m.text.includes("streaming slowly")), "the first streamed chunk", 60_000);
      let t0 = Date.now();
      expect((await api("POST", `/sessions/${sid}/cancel`)).status).toBe(202);
      await waitForSession(api, sid, ["waiting_for_input"], 2000);
      expect(Date.now() - t0).toBeLessThan(2000);

      fake.script = toolThenText({ name: "Bash", input: { command: "tail -f /dev/null", description: "wait for input" } }, "slept");
      expect((await api("POST", `/sessions/${sid}/prompt`, { prompt: "wait a while" })).status).toBe(202);
      const ask = await pendingAsk(api, sid);
      await api("POST", `/sessions/${sid}/permissions/${ask.requestId}`, { optionId: ask.options.find((o) => o.kind === "allow_once")!.optionId });
      await waitFor(async () => (await messages(api, sid)).some((m) => m.role === "tool" && m.data?.status === "in_progress"), "the Bash tool to run", 30_000).catch(() => undefined);
      t0 = Date.now();
      expect((await api("POST", `/sessions/${sid}/cancel`)).status).toBe(202);
      await waitForSession(api, sid, ["waiting_for_input"], 2000);
      await waitFor(async () => (await messages(api, sid)).filter((m) => m.role === "tool").every((m) => !["pending", "in_progress"].includes(m.data?.status ?? "pending")), "every tool row closed", 2000);
      expect(Date.now() - t0).toBeLessThan(2000);
    } finally {
      await closeServer();
    }
  }, 240_000);

  it("AG-1 SES-6 kill -9 of the server mid-turn → restart marks the interrupted turn → the next prompt resumes with session/load in the same cwd and the model sees the history", async () => {
    const db = await freshDatabase("sqlite");
    linkBridge(db.home, "claude");
    const env = { GROVE_HOME: db.home };
    // A loaded machine can take long to start a child server; the measure here is not its speed.
    let server = await spawnServer(env, { startTimeoutMs: 120_000 });
    try {
      const api = apiClient(server.url);
      const { task } = await repoAndTask({ api } as TestServer);
      const s = await api("POST", `/tasks/${task.id}/sessions`, { agent: "claude" });
      expect(s.status).toBe(201);
      const sid = s.body.id as string;
      const cwd = (await api("GET", `/sessions/${sid}/workspace`)).body.workspacePath as string;
      fake.script = () => ({ text: "thinking out loud", chunks: 600, chunkDelayMs: 100 });
      await api("POST", `/sessions/${sid}/prompt`, { prompt: "Remember the word PAPAYA." });
      await waitFor(async () => (await messages(api, sid)).some((m) => m.role === "agent" && m.text.includes("thinking out loud")), "the streamed answer", 60_000);
      server.child.kill("SIGKILL");
      await server.exited;

      server = await spawnServer(env, { startTimeoutMs: 120_000 });
      const api2 = apiClient(server.url);
      await waitForSession(api2, sid, ["waiting_for_input"]);
      const marked = await messages(api2, sid);
      expect(marked.some((m) => m.role === "system" && /interrupted/.test(m.text))).toBe(true);
      expect(marked.filter((m) => m.role === "tool").every((m) => !["pending", "in_progress"].includes(m.data?.status ?? "pending"))).toBe(true);

      const before = fake.main.length;
      fake.script = () => ({ text: "The word was PAPAYA." });
      expect((await api2("POST", `/sessions/${sid}/prompt`, { prompt: "Which word?" })).status).toBe(202);
      await waitForSession(api2, sid, ["waiting_for_input"], 60_000);
      const later = fake.main.slice(before);
      expect(later.length).toBeGreaterThan(0);
      expect(userTexts(later.at(-1)!)).toContain("Remember the word PAPAYA.");
      const frames = execFileSync("cat", [join(db.home, "logs", `${sid}.acp.jsonl`)], { encoding: "utf8" }).split("\n").filter(Boolean).map((l) => JSON.parse(l).msg);
      const loads = frames.filter((m) => m.method === "session/load");
      expect(loads).toHaveLength(1);
      expect(loads[0].params.cwd).toBe(cwd);
    } finally {
      server.child.kill("SIGKILL");
      await server.exited;
      await db.drop();
      rmSync(db.home, { recursive: true, force: true });
    }
  }, 400_000);

  it("AG-3 the bridge with no credentials fails at start with agent_auth_required naming the fix", async () => {
    // No key and no model address: a person who never set Claude up.
    const key = process.env.ANTHROPIC_API_KEY;
    const base = process.env.ANTHROPIC_BASE_URL;
    delete process.env.ANTHROPIC_API_KEY;
    delete process.env.ANTHROPIC_BASE_URL;
    try {
      const t0 = Date.now();
      const db = await freshDatabase("sqlite");
      linkBridge(db.home, "claude");
      srv = await startTestServer("sqlite", db);
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
      process.env.ANTHROPIC_API_KEY = key;
      process.env.ANTHROPIC_BASE_URL = base;
      await closeServer();
    }
  });

  it("issue 10: no traffic left loopback (every attempt through the proxy is refused and counted)", () => {
    expect(fake.main.length).toBeGreaterThan(0);
    expect(proxyAttempts).toEqual([]);
  });
});
