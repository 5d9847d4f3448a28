import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { isSameProcess, readStartTime } from "../../src/agents/process-info.js";
import { scriptedAgentCommand } from "../../src/agents/profiles.js";
import { AgentRuntime, type AgentHandle } from "../../src/agents/runtime.js";
import type { ScriptedSessionState } from "../../src/agents/scripted-agent-state.js";
import type { AgentProfileConfig } from "../../src/agents/profiles.js";
import { cleanup, isGone, makeRepo, processesWithCwd, readLog, Recorder, scriptedProfile, tempDir } from "./fixture.js";

const runtime = new AgentRuntime({ startTimeoutMs: 20_000 });
afterEach(() => runtime.stopAll({ graceMs: 500 }));
afterAll(cleanup);

let seq = 0;
interface Started {
  h: AgentHandle;
  rec: Recorder;
  logFile: string;
  sessionId: string;
}
async function start(opts: {
  cwd: string;
  home: string;
  profile?: AgentProfileConfig;
  resume?: { acpSessionId: string };
  rt?: AgentRuntime;
}): Promise<Started> {
  const rec = new Recorder();
  const sessionId = `ses_rt_${++seq}`;
  const logFile = join(opts.home, "logs", `${sessionId}.jsonl`);
  const h = await (opts.rt ?? runtime).start({
    sessionId,
    profile: opts.profile ?? scriptedProfile(opts.home),
    cwd: opts.cwd,
    logFile,
    callbacks: rec,
    ...(opts.resume ? { resume: opts.resume } : {}),
  });
  return { h, rec, logFile, sessionId };
}

function stateOf(home: string, acpSessionId: string): ScriptedSessionState {
  return JSON.parse(readFileSync(join(home, "agents", "scripted", `${acpSessionId}.json`), "utf8"));
}

describe("agent runtime (SES-5)", () => {
  it("SES-5.1 starts the agent in its own process group with cwd, records pid + start time, speaks initialize and session/new", async () => {
    const home = tempDir("grove-home-");
    const cwd = makeRepo();
    const { h, logFile, sessionId } = await start({ cwd, home });
    expect(runtime.get(sessionId)).toBe(h);
    expect(h.resumed).toBe(false);
    expect(h.acpSessionId).toMatch(/^scripted-/);
    expect(h.startTime).toBe(readStartTime(h.pid));
    expect(isSameProcess(h.pid, h.startTime)).toBe(true);
    const stat = readFileSync(`/proc/${h.pid}/stat`, "utf8");
    const pgrp = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2];
    expect(pgrp).toBe(String(h.pid)); // detached: leader of its own group
    expect(stateOf(home, h.acpSessionId).cwd).toBe(cwd);
    const out = readLog(logFile)
      .filter((l) => l.dir === "out")
      .map((l) => l.msg.method);
    expect(out).toEqual(["initialize", "session/new"]);
    const init = readLog(logFile).find((l) => l.dir === "out" && l.msg.method === "initialize")!;
    expect(init.msg.params).toMatchObject({ protocolVersion: 1, clientCapabilities: {} });
  });

  it("SES-5.2 streamed updates reach onEvent synchronously in arrival order; the raw log has every in/out frame", async () => {
    const home = tempDir("grove-home-");
    const { h, rec, logFile } = await start({ cwd: makeRepo(), home });
    const script = Array.from({ length: 30 }, (_, i) => (i % 3 === 0 ? `think t${i}` : i % 3 === 1 ? `say m${i}` : `line ${i}`)).join("\n");
    await h.prompt(script);
    await h.stop();
    const log = readLog(logFile);
    for (const l of log) expect(Number.isNaN(Date.parse(l.at))).toBe(false);
    const updates = log
      .filter((l) => l.dir === "in" && l.msg.method === "session/update")
      .map((l) => l.msg.params!.update as { sessionUpdate: string; toolCallId?: string; content?: { text?: string } });
    expect(updates.length).toBe(rec.events.length);
    expect(rec.events.length).toBe(10 * 3 + 10 * 3 + 10);
    rec.events.forEach((e, i) => {
      const u = updates[i]!;
      if (e.kind === "message_chunk") expect(u.content?.text).toBe(e.text);
      else expect(u.toolCallId).toBe((e as { toolCallId: string }).toolCallId);
    });
    expect(rec.text("thought")).toEqual(Array.from({ length: 10 }, (_, i) => `t${i * 3}`));
    const prompt = log.find((l) => l.dir === "out" && l.msg.method === "session/prompt")!;
    const answer = log.find((l) => l.dir === "in" && l.msg.id === prompt.msg.id && l.msg.method === undefined)!;
    expect(answer.msg.result).toEqual({ stopReason: "end_turn" });
    expect(log.indexOf(answer)).toBeGreaterThan(log.findLastIndex((l) => l.msg.method === "session/update"));
  });

  it("SES-5.3 resume in a new process: session/load with the same cwd, the replayed history is not reported, the agent remembers", async () => {
    const home = tempDir("grove-home-");
    const cwd = makeRepo();
    const first = await start({ cwd, home });
    await first.h.prompt("say remember the blue door\nwrite door.txt blue");
    const acpSessionId = first.h.acpSessionId;
    await first.h.stop();
    expect(isGone(first.h.pid)).toBe(true);

    const second = await start({ cwd, home, resume: { acpSessionId } });
    expect(second.h.resumed).toBe(true);
    expect(second.h.acpSessionId).toBe(acpSessionId);
    expect(second.h.pid).not.toBe(first.h.pid);
    expect(second.rec.events).toEqual([]);
    const state = stateOf(home, acpSessionId);
    expect(state.loads.map((l) => l.cwd)).toEqual([cwd]);
    expect(
      state.history.some((u) => u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" && u.content.text === "remember the blue door"),
    ).toBe(true);
    // The replay did arrive on the wire (so it was suppressed, not absent).
    const log = readLog(second.logFile);
    const loadReq = log.find((l) => l.dir === "out" && l.msg.method === "session/load")!;
    expect(loadReq.msg.params).toMatchObject({ sessionId: acpSessionId, cwd });
    const replayed = log.filter((l) => l.dir === "in" && l.msg.method === "session/update");
    expect(replayed.length).toBe(state.history.length);

    await second.h.prompt("say still here");
    expect(second.rec.text("agent")).toEqual(["still here"]);
    expect(stateOf(home, acpSessionId).history.length).toBeGreaterThan(state.history.length);
  });

  it("SES-5.3 resume of a session the agent does not know falls back to session/new with resumed:false", async () => {
    const home = tempDir("grove-home-");
    const { h, logFile } = await start({ cwd: makeRepo(), home, resume: { acpSessionId: "scripted-does-not-exist" } });
    expect(h.resumed).toBe(false);
    expect(h.acpSessionId).not.toBe("scripted-does-not-exist");
    expect(
      readLog(logFile)
        .filter((l) => l.dir === "out")
        .map((l) => l.msg.method),
    ).toEqual(["initialize", "session/load", "session/new"]);
    expect((await h.prompt("say fresh")).stopReason).toBe("end_turn");
  });

  it("SES-5.4 stop() closes stdin, SIGTERMs then SIGKILLs the whole process group, grandchildren included", async () => {
    const home = tempDir("grove-home-");
    const pidFile = join(home, "grandchild.pid");
    const scripted = scriptedAgentCommand();
    // An npx-like tree: a shell starts a grandchild that ignores SIGTERM, then execs the agent.
    const profile = scriptedProfile(home, {
      command: "sh",
      args: ["-c", `(trap '' TERM; exec sleep 300) & echo $! > "$PID_FILE"; exec "$@"`, "wrapper", scripted.command, ...scripted.args],
      env: { PID_FILE: pidFile },
    });
    const { h, rec, sessionId } = await start({ cwd: makeRepo(), home, profile });
    const grandchild = Number(readFileSync(pidFile, "utf8"));
    expect(isGone(grandchild)).toBe(false);
    expect(isGone(h.pid)).toBe(false);
    const turn = h.prompt("sleep 30000").catch((e: unknown) => e);
    await rec.until(() => rec.events.length > 0);
    const t0 = Date.now();
    await h.stop({ graceMs: 300 });
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(isGone(h.pid)).toBe(true);
    expect(isGone(grandchild)).toBe(true);
    expect(await turn).toMatchObject({ code: "agent_crashed" });
    expect(rec.exits).toHaveLength(1);
    expect(rec.exits[0]).toMatchObject({ duringTurn: true });
    expect(runtime.get(sessionId)).toBeUndefined();
    expect(isSameProcess(h.pid, h.startTime)).toBe(false);
    await h.stop(); // idempotent
  });

  it("SES-5.4 when the agent exits by itself, what is left of its process group is killed", async () => {
    const home = tempDir("grove-home-");
    const pidFile = join(home, "grandchild.pid");
    const scripted = scriptedAgentCommand();
    const profile = scriptedProfile(home, {
      command: "sh",
      args: ["-c", `(trap '' TERM; exec sleep 300) & echo $! > "$PID_FILE"; exec "$@"`, "wrapper", scripted.command, ...scripted.args],
      env: { PID_FILE: pidFile },
    });
    const { h, rec } = await start({ cwd: makeRepo(), home, profile });
    const grandchild = Number(readFileSync(pidFile, "utf8"));
    expect(isGone(grandchild)).toBe(false);
    await expect(h.prompt("crash 4")).rejects.toMatchObject({ code: "agent_crashed" });
    await rec.until(() => rec.exits.length === 1);
    expect(rec.exits[0]).toEqual({ code: 4, signal: null, duringTurn: true, pid: h.pid, startTime: h.startTime });
    expect(isGone(grandchild)).toBe(true);
  });

  it("SES-5.4 stopAll stops every live agent", async () => {
    const home = tempDir("grove-home-");
    const rt = new AgentRuntime({ startTimeoutMs: 20_000 });
    const a = await start({ cwd: makeRepo(), home, rt });
    const b = await start({ cwd: makeRepo(), home, rt });
    await rt.stopAll({ graceMs: 500 });
    expect([isGone(a.h.pid), isGone(b.h.pid)]).toEqual([true, true]);
    expect([rt.get(a.sessionId), rt.get(b.sessionId)]).toEqual([undefined, undefined]);
    expect(a.rec.exits[0]).toMatchObject({ duringTurn: false });
  });

  it("SES-5.8 stop() reaches an agent that is still starting: its start fails at once and no process is left", async () => {
    const home = tempDir("grove-home-");
    const cwd = makeRepo();
    const pidFile = join(home, "slow.pid");
    const rt = new AgentRuntime({ startTimeoutMs: 60_000 });
    const silent = `require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); setInterval(() => {}, 1000)`;
    const profile: AgentProfileConfig = {
      name: "slow",
      command: process.execPath,
      args: ["-e", silent],
      env: {},
      permissionPolicy: "auto_approve",
      builtIn: false,
    };
    const sessionId = "ses_rt_starting";
    const started = rt.start({ sessionId, profile, cwd, logFile: join(home, "logs", "slow.jsonl"), callbacks: new Recorder() });
    const settled = started.then(
      () => "started",
      (e: unknown) => e,
    );
    const t0 = Date.now();
    while (!existsSync(pidFile) && Date.now() - t0 < 10_000) await new Promise((r) => setTimeout(r, 20));
    expect(rt.isStarting(sessionId)).toBe(true);
    await rt.stop(sessionId, { graceMs: 500 });
    expect(await settled).toMatchObject({ code: "agent_start_failed" });
    expect(Date.now() - t0).toBeLessThan(15_000);
    expect(isGone(Number(readFileSync(pidFile, "utf8")))).toBe(true);
    expect(rt.isStarting(sessionId)).toBe(false);
  });

  it("SES-5.8 stop() while the agent's process is still being spawned: its start fails at once with reason stopped and no process is left", async () => {
    const home = tempDir("grove-home-");
    const cwd = makeRepo();
    const rt = new AgentRuntime({ startTimeoutMs: 60_000 });
    const profile: AgentProfileConfig = {
      name: "slow",
      command: process.execPath,
      args: ["-e", "setInterval(() => {}, 1000)"],
      env: {},
      permissionPolicy: "auto_approve",
      builtIn: false,
    };
    const sessionId = "ses_rt_spawning";
    const t0 = Date.now();
    // start() runs up to its spawn and returns; the process has no handle to kill yet.
    const settled = rt.start({ sessionId, profile, cwd, logFile: join(home, "logs", "slow.jsonl"), callbacks: new Recorder() }).then(
      () => "started",
      (e: unknown) => e,
    );
    expect(rt.isStarting(sessionId)).toBe(true);
    await rt.stop(sessionId, { graceMs: 500 });
    // When stop() resolves, the process is gone (the start killed it on its way out).
    expect(processesWithCwd((d) => d === cwd)).toEqual([]);
    expect(await settled).toMatchObject({ code: "agent_start_failed", details: { reason: "stopped" } });
    expect(Date.now() - t0).toBeLessThan(15_000);
    expect(rt.isStarting(sessionId)).toBe(false);
  });

  it("SES-5.9 close() while a start is spawning its process: the start fails with server_stopping, no process is left, and later starts are refused", async () => {
    const home = tempDir("grove-home-");
    const cwd = makeRepo();
    const rt = new AgentRuntime({ startTimeoutMs: 20_000 });
    const input = (sessionId: string) => ({
      sessionId,
      profile: scriptedProfile(home),
      cwd,
      logFile: join(home, "logs", `${sessionId}.jsonl`),
      callbacks: new Recorder(),
    });
    // start() is past its first checks and awaiting the spawn when close() runs: close() cannot see that process yet.
    const racing = rt.start(input("ses_rt_close_race")).then(
      (h) => h,
      (e: unknown) => e,
    );
    await rt.close({ graceMs: 500 });
    const settled = await racing;
    if (!(settled instanceof Error)) await (settled as AgentHandle).stop({ graceMs: 500 });
    expect(settled).toMatchObject({ code: "agent_start_failed", details: { reason: "server_stopping" } });
    expect(rt.liveCount()).toBe(0);
    expect(processesWithCwd((d) => d === cwd)).toEqual([]);
    expect(existsSync(join(home, "logs", "ses_rt_close_race.jsonl"))).toBe(false);

    await expect(rt.start(input("ses_rt_after_close"))).rejects.toMatchObject({
      code: "agent_start_failed",
      details: { reason: "server_stopping", step: "spawn" },
    });
    expect(processesWithCwd((d) => d === cwd)).toEqual([]);
    expect(rt.liveCount()).toBe(0);
  });

  it("SES-5.5 start failures are agent_start_failed with the stderr tail, and leave no process behind", async () => {
    const home = tempDir("grove-home-");
    const cwd = makeRepo();
    const profile = (command: string, args: string[]): AgentProfileConfig => ({
      name: "broken",
      command,
      args,
      env: {},
      permissionPolicy: "auto_approve",
      builtIn: false,
    });

    await expect(start({ cwd, home, profile: profile("/nonexistent/agent-binary", []) })).rejects.toMatchObject({ code: "agent_start_failed" });

    const err = await start({ cwd, home, profile: profile(process.execPath, ["-e", "console.error('no credentials here'); process.exit(2)"]) }).catch(
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ code: "agent_start_failed", details: { exitCode: 2 } });
    expect((err as { details: { stderr: string } }).details.stderr).toContain("no credentials here");

    // Speaks no ACP at all: the start times out and the process is killed.
    const pidFile = join(home, "silent.pid");
    const rt = new AgentRuntime({ startTimeoutMs: 700 });
    const silent = `require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); setInterval(() => {}, 1000)`;
    await expect(start({ cwd, home, rt, profile: profile(process.execPath, ["-e", silent]) })).rejects.toMatchObject({ code: "agent_start_failed" });
    expect(isGone(Number(readFileSync(pidFile, "utf8")))).toBe(true);

    // A cwd that does not exist.
    await expect(start({ cwd: join(home, "missing"), home })).rejects.toMatchObject({ code: "agent_start_failed" });
    expect(runtime.get(`ses_rt_${seq}`)).toBeUndefined();
  });

  it("SES-5.6 a second start for a live session is refused", async () => {
    const home = tempDir("grove-home-");
    const cwd = makeRepo();
    const { sessionId } = await start({ cwd, home });
    await expect(
      runtime.start({ sessionId, profile: scriptedProfile(home), cwd, logFile: join(home, "x.jsonl"), callbacks: new Recorder() }),
    ).rejects.toMatchObject({ code: "session_busy" });
  });
});
