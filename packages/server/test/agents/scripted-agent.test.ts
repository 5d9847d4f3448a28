import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { AgentRuntime, type AgentEvent, type AgentHandle } from "../../src/agents/runtime.js";
import { scriptedAgentCommand, type AgentProfileConfig } from "../../src/agents/profiles.js";
import { cleanup, git, makeRepo, Recorder, scriptedProfile, tempDir } from "./fixture.js";

const runtime = new AgentRuntime({ startTimeoutMs: 20_000 });
afterEach(() => runtime.stopAll({ graceMs: 500 }));
afterAll(cleanup);

let seq = 0;
async function start(cwd: string, overrides: Partial<AgentProfileConfig> = {}): Promise<{ h: AgentHandle; rec: Recorder; home: string }> {
  const home = tempDir("grove-home-");
  const rec = new Recorder();
  const h = await runtime.start({
    sessionId: `ses_scripted_${++seq}`,
    profile: scriptedProfile(home, overrides),
    cwd,
    logFile: join(home, "logs", "acp.jsonl"),
    callbacks: rec,
  });
  return { h, rec, home };
}

type ToolEvent = Extract<AgentEvent, { kind: "tool_call" | "tool_call_update" }>;
/** `[title, status]` of each tool call, with the status sequence it went through. */
function toolStatuses(events: AgentEvent[]): Record<string, string[]> {
  const titles = new Map<string, string>();
  const out: Record<string, string[]> = {};
  for (const e of events.filter((x): x is ToolEvent => x.kind === "tool_call" || x.kind === "tool_call_update")) {
    if (e.kind === "tool_call") titles.set(e.toolCallId, e.title);
    const title = titles.get(e.toolCallId) ?? "?";
    (out[title] ??= []).push(e.status ?? "?");
  }
  return out;
}

describe("scripted agent (SES-9)", () => {
  it("SES-9.1 say, think and unknown lines: chunks, tool calls pending→completed, end_turn", async () => {
    const { h, rec } = await start(makeRepo());
    const r = await h.prompt("say hello world\nthink let me see\nwhat is this?\n\n");
    expect(r.stopReason).toBe("end_turn");
    expect(rec.text("agent")).toEqual(["hello world", "ok: what is this?"]);
    expect(rec.text("thought")).toEqual(["let me see"]);
    expect(toolStatuses(rec.events)).toEqual({ "say hello world": ["pending", "completed"], "think let me see": ["pending", "completed"] });
    const kinds = rec.events.map((e) => (e.kind === "message_chunk" ? `${e.role}` : e.kind));
    expect(kinds).toEqual(["tool_call", "agent", "tool_call_update", "tool_call", "thought", "tool_call_update", "agent"]);
    const think = rec.events.find((e) => e.kind === "tool_call" && e.title.startsWith("think"));
    expect(think).toMatchObject({ toolKind: "think" });
  });

  it("SES-9.2 write, append, delete change real files; \\n is a newline", async () => {
    const repo = makeRepo();
    const { h, rec } = await start(repo);
    expect((await h.prompt("write notes/a.txt line one\\nline two\nappend notes/a.txt \\nline three\nwrite b.txt bye\ndelete README.md")).stopReason).toBe(
      "end_turn",
    );
    expect(readFileSync(join(repo, "notes/a.txt"), "utf8")).toBe("line one\nline two\nline three");
    expect(readFileSync(join(repo, "b.txt"), "utf8")).toBe("bye");
    expect(existsSync(join(repo, "README.md"))).toBe(false);
    expect(
      git(repo, "status", "--porcelain")
        .split("\n")
        .map((l) => l.trim())
        .sort(),
    ).toEqual(["?? b.txt", "?? notes/", "D README.md"]);
    const statuses = Object.values(toolStatuses(rec.events));
    expect(statuses).toHaveLength(4);
    for (const s of statuses) expect(s).toEqual(["pending", "completed"]);
    const write = rec.events.find((e) => e.kind === "tool_call" && e.title.startsWith("write b.txt"));
    expect(write).toMatchObject({ toolKind: "edit", raw: { locations: [{ path: join(repo, "b.txt") }] } });
  });

  it("SES-9.3 paths that escape cwd are refused: the tool call fails, the turn ends with an error message", async () => {
    const parent = tempDir("grove-escape-");
    const repo = makeRepo(join(parent, "repo"));
    symlinkSync(parent, join(repo, "link"));
    const { h, rec } = await start(repo);
    for (const [script, what] of [
      ["write ../outside.txt x", "escapes"],
      [`write ${join(parent, "abs.txt")} x`, "relative"],
      ["write link/through.txt x", "symlink"],
      ["delete .git/HEAD", "git internals"],
    ] as const) {
      rec.events.length = 0;
      expect((await h.prompt(`${script}\nsay not reached`)).stopReason).toBe("end_turn");
      expect(Object.values(toolStatuses(rec.events))).toEqual([["pending", "failed"]]);
      expect(rec.text("agent")).toHaveLength(1);
      expect(rec.text("agent")[0]).toMatch(new RegExp(`^error: .*${what}`));
    }
    expect(existsSync(join(parent, "outside.txt"))).toBe(false);
    expect(existsSync(join(parent, "abs.txt"))).toBe(false);
    expect(existsSync(join(parent, "through.txt"))).toBe(false);
    expect(existsSync(join(repo, ".git/HEAD"))).toBe(true);
  });

  it("SES-9.4 commit runs git add -A && git commit in the repository holding cwd; nothing to commit fails", async () => {
    const repo = makeRepo();
    const { h, rec } = await start(repo);
    await h.prompt('write src/x.ts export const x = 1;\\n\ncommit add x; with "quotes" && $(no shell)');
    expect(git(repo, "log", "-1", "--format=%s")).toBe('add x; with "quotes" && $(no shell)');
    expect(git(repo, "status", "--porcelain")).toBe("");
    expect(git(repo, "show", "--name-only", "--format=", "HEAD")).toBe("src/x.ts");
    rec.events.length = 0;
    expect((await h.prompt("commit again")).stopReason).toBe("end_turn");
    expect(toolStatuses(rec.events)).toEqual({ "commit again": ["pending", "failed"] });
    expect(rec.text("agent")).toEqual(["error: nothing to commit"]);
  });

  it("SES-9.4 commit in a several-repository workspace commits every repository with changes", async () => {
    const root = tempDir("grove-multi-");
    const a = makeRepo(join(root, "alpha"));
    const b = makeRepo(join(root, "beta"));
    const c = makeRepo(join(root, "gamma"));
    const { h } = await start(root);
    expect((await h.prompt("write alpha/a.txt A\nwrite gamma/c.txt C\ncommit multi")).stopReason).toBe("end_turn");
    expect(git(a, "log", "-1", "--format=%s")).toBe("multi");
    expect(git(c, "log", "-1", "--format=%s")).toBe("multi");
    expect(git(b, "log", "-1", "--format=%s")).toBe("initial");
    for (const r of [a, b, c]) expect(git(r, "status", "--porcelain")).toBe("");
  });

  it("SES-9.4 commit uses a fallback identity when the repository has none", async () => {
    const repo = makeRepo();
    git(repo, "config", "--unset", "user.email");
    git(repo, "config", "--unset", "user.name");
    const { h } = await start(repo, { env: { HOME: tempDir("grove-nohome-"), GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" } });
    expect((await h.prompt("write y.txt y\ncommit anonymous")).stopReason).toBe("end_turn");
    expect(git(repo, "log", "-1", "--format=%an <%ae> %s")).toBe("Grove Scripted Agent <scripted-agent@grove.invalid> anonymous");
  });

  it("SES-9.5 sleep is cancellable: session/cancel ends the turn with cancelled and skips the rest", async () => {
    const { h, rec } = await start(makeRepo());
    const t0 = Date.now();
    const turn = h.prompt("sleep 30000\nsay too late");
    await rec.until(() => rec.events.some((e) => e.kind === "tool_call"));
    expect(h.busy).toBe(true);
    await expect(h.prompt("say concurrently")).rejects.toMatchObject({ code: "session_busy" });
    await h.cancel();
    expect((await turn).stopReason).toBe("cancelled");
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(h.busy).toBe(false);
    expect(rec.text("agent")).toEqual([]);
    expect(toolStatuses(rec.events)).toEqual({ "sleep 30000": ["pending", "failed"] });
    // The session stays usable after a cancelled turn.
    expect((await h.prompt("sleep 10\nsay awake")).stopReason).toBe("end_turn");
    expect(rec.text("agent")).toEqual(["awake"]);
  });

  it("SES-9.6 ask under auto_approve: allowed, the script goes on", async () => {
    const { h, rec } = await start(makeRepo());
    expect((await h.prompt("ask may I?\nsay yes")).stopReason).toBe("end_turn");
    expect(rec.asks).toEqual([]);
    expect(toolStatuses(rec.events)).toEqual({ "ask may I?": ["pending", "completed"], "say yes": ["pending", "completed"] });
  });

  it("SES-9.6 ask under the ask policy: the person approves, or rejects (tool call failed, end_turn with a message)", async () => {
    const { h, rec } = await start(makeRepo(), { permissionPolicy: "ask" });
    rec.answer = async (ask) => ({ optionId: ask.options.find((o) => o.kind === "allow_once")!.optionId });
    expect((await h.prompt("ask deploy?\nsay deployed")).stopReason).toBe("end_turn");
    expect(rec.asks).toHaveLength(1);
    expect(rec.asks[0]).toMatchObject({ title: "deploy?" });
    expect(rec.asks[0]!.options.map((o) => o.kind)).toEqual(["allow_once", "allow_always", "reject_once"]);
    expect(rec.text("agent")).toEqual(["deployed"]);

    rec.events.length = 0;
    rec.answer = async (ask) => ({ optionId: ask.options.find((o) => o.kind === "reject_once")!.optionId });
    expect((await h.prompt("ask delete prod?\nsay deleted")).stopReason).toBe("end_turn");
    expect(toolStatuses(rec.events)).toEqual({ "ask delete prod?": ["pending", "failed"] });
    expect(rec.text("agent")).toEqual(["permission rejected: delete prod?"]);
  });

  it("SES-9.6 cancel while a permission ask waits: the ask is answered cancelled, the turn ends cancelled", async () => {
    const { h, rec } = await start(makeRepo(), { permissionPolicy: "ask" });
    rec.answer = () => new Promise(() => {}); // nobody answers
    const turn = h.prompt("ask wait for me\nsay never");
    await rec.until(() => rec.asks.length === 1);
    await h.cancel();
    expect((await turn).stopReason).toBe("cancelled");
    expect(rec.text("agent")).toEqual([]);
  });

  it("SES-9.7 fail ends the turn with refusal and the text as message", async () => {
    const { h, rec } = await start(makeRepo());
    expect((await h.prompt("fail I will not do that\nsay not reached")).stopReason).toBe("refusal");
    expect(rec.text("agent")).toEqual(["I will not do that"]);
    expect(toolStatuses(rec.events)).toEqual({ "fail I will not do that": ["pending", "failed"] });
  });

  it("SES-9.8 crash mid-turn: prompt rejects agent_crashed, onExit reports the code during the turn", async () => {
    const { h, rec } = await start(makeRepo());
    await expect(h.prompt("say before\ncrash 3\nsay after")).rejects.toMatchObject({ code: "agent_crashed", details: { exitCode: 3 } });
    await rec.until(() => rec.exits.length === 1);
    expect(rec.exits).toEqual([{ code: 3, signal: null, duringTurn: true, pid: h.pid, startTime: h.startTime }]);
    expect(rec.text("agent")).toEqual(["before"]);
    expect(runtime.get(`ses_scripted_${seq}`)).toBeUndefined();
    await expect(h.prompt("say hi")).rejects.toMatchObject({ code: "agent_crashed" });
  });

  it("SES-9.9 the agent program answers initialize on stdout and exits 0 when its stdin closes", async () => {
    const { command, args } = scriptedAgentCommand();
    const child = spawn(command, args, { cwd: makeRepo(), stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, GROVE_SCRIPTED_STATE_DIR: tempDir() } });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } })}\n`);
    child.stdin.end();
    const code = await new Promise<number | null>((resolve) => child.once("exit", (c) => resolve(c)));
    expect(code).toBe(0);
    const lines = out
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(lines).toEqual([{ jsonrpc: "2.0", id: 0, result: expect.objectContaining({ protocolVersion: 1, agentCapabilities: { loadSession: true } }) }]);
  });

  it("SES-9.2 write in a several-repository workspace addresses <repoDir>/<file>", async () => {
    const root = tempDir("grove-multi-");
    mkdirSync(join(root, "one"));
    writeFileSync(join(root, "one", "keep.txt"), "k");
    const { h } = await start(root);
    await h.prompt("write one/new.txt N");
    expect(readFileSync(join(root, "one", "new.txt"), "utf8")).toBe("N");
  });
});
