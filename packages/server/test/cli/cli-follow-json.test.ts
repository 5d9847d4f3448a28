import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { Command } from "commander";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildProgram } from "../../src/cli/main.js";
import { makeRepo, type TestRepo } from "../fixture/git.js";
import { startTestServer, waitFor, waitForSession, type TestServer } from "../fixture/server.js";
import { serverHomeOf } from "../fixture/server-homes.js";
import { runGrove } from "./run-cli.js";

const LAUNCHER = fileURLToPath(new URL("../../bin/grove.mjs", import.meta.url));

/** The bundled CLI as a child whose stdout can be read while it runs. */
function spawnGrove(args: string[]) {
  const env: NodeJS.ProcessEnv = { ...process.env, GROVE_CLI_BUNDLE: "require", GROVE_HOME: serverHomeOf(args) };
  delete env.GROVE_AUTH_TOKEN;
  const child = spawn(process.execPath, [LAUNCHER, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
  const run = { stdout: "", stderr: "", code: undefined as number | null | undefined };
  child.stdout.on("data", (d: Buffer) => (run.stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (run.stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve((run.code = code))));
  return { run, exited, kill: () => child.kill() };
}

// CLI-15 and CLI-16 (docs/specs/cli.md) with the bundled CLI against a real server and the
// scripted agent; CLI-17 over the whole command tree.
describe("CLI-15 session show --follow, CLI-16 JSON errors, CLI-17 help text", () => {
  let srv: TestServer;
  let repo: TestRepo;
  let sessionId: string;
  const grove = (...args: string[]) => runGrove([...args, "--server", srv.url]);
  const prompt = async (text: string) => {
    expect((await srv.api("POST", `/sessions/${sessionId}/prompt`, { prompt: text })).status).toBe(202);
    await waitForSession(srv.api, sessionId, ["running"]);
  };

  beforeAll(async () => {
    srv = await startTestServer("sqlite");
    repo = await makeRepo({ name: "alpha" });
    expect((await grove("repo", "add", repo.path)).code).toBe(0);
    const taskId = (await grove("task", "create", "--title", "Follow me", "--repo", "alpha", "--quiet")).stdout.trim();
    const started = await grove("task", "start", taskId, "--agent", "scripted", "--prompt", "say ready", "--wait", "--quiet");
    expect(started.code).toBe(0);
    sessionId = started.stdout.trim();
  });
  afterAll(async () => {
    await srv?.close();
    await repo?.cleanup();
  });

  it("CLI-15 --follow prints what the turn adds while it runs and exits 0 when it ends", async () => {
    await prompt("sleep 800\nsay streamed while running\nsleep 2500\nsay the last word");
    const f = spawnGrove(["session", "show", sessionId, "--follow", "--server", srv.url]);
    try {
      await waitFor(() => f.run.stdout.includes("agent: streamed while running"), "the first line of the turn on stdout");
      // Seen before the turn ended: the command streams, it does not wait and print at the end.
      expect(f.run.code).toBeUndefined();
      expect(((await srv.api("GET", `/sessions/${sessionId}`)).body as { state: string }).state).toBe("running");
      expect(await f.exited).toBe(0);
    } finally {
      f.kill();
    }
    const out = f.run.stdout;
    expect(out).toMatch(new RegExp(`^session ${sessionId} {2}task \\S+ {2}agent scripted\\nstate: Working\\n`));
    expect(out.split("agent: streamed while running").length).toBe(2);
    expect(out.indexOf("agent: streamed while running")).toBeLessThan(out.indexOf("agent: the last word"));
    expect(out).toMatch(/agent: ready\n/);
    expect(out).toMatch(/\nagent: the last word\n/);
    // A tool call shows as it goes: pending, then completed.
    expect(out).toMatch(/tool \[pending\]: sleep 2500\ntool \[completed\]: sleep 2500\n/);
    expect(out.endsWith("\nstate: Waiting for you\n")).toBe(true);
    expect(f.run.stderr).toBe("");
  });

  it("CLI-15 --follow of a settled session prints it and ends at once", async () => {
    const r = await grove("session", "show", sessionId, "--follow");
    expect(r.code).toBe(0);
    expect(r.stdout.endsWith("state: Waiting for you\n")).toBe(true);
  });

  it("CLI-15 --follow exits 1 with the reason when the turn fails", async () => {
    await prompt("sleep 600\nfail cannot follow that");
    const r = await grove("session", "show", sessionId, "--follow");
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("agent: cannot follow that");
    expect(r.stderr).toMatch(/^error: turn_failed: the turn of session \S+ ended with refusal: cannot follow that\n$/);
  });

  it("CLI-15 --follow --json prints one document at the end: the settled session and every message", async () => {
    await prompt("sleep 600\nsay in json");
    const r = await grove("session", "show", sessionId, "--follow", "--json");
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as { session: { state: string }; messages: { role: string; text: string }[] };
    expect(doc.session.state).toBe("waiting_for_input");
    expect(doc.messages.filter((m) => m.role === "agent").map((m) => m.text)).toContain("in json");
  });

  it("CLI-16 with --json an API error is one JSON document on stderr, stdout empty", async () => {
    const r = await grove("task", "show", "task_missing", "--json");
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr.endsWith("\n")).toBe(true);
    expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(JSON.parse(r.stderr)).toEqual({ error: { code: "not_found", message: expect.stringContaining("task_missing"), details: expect.any(Object) } });
  });

  it("CLI-16 with --json usage errors, local errors and an unreachable server are JSON documents too", async () => {
    const usage = await grove("task", "create", "--title", "x", "--json");
    expect(usage.code).toBe(1);
    expect(JSON.parse(usage.stderr)).toMatchObject({
      error: { code: "invalid_arguments", message: "missing --repo <repoIdOrName[@baseBranch]>", details: { missing: ["--repo <repoIdOrName[@baseBranch]>"] } },
    });
    const local = await grove("task", "edit", "task_x", "--json");
    expect(JSON.parse(local.stderr)).toMatchObject({ error: { code: "invalid_arguments" } });
    const down = await runGrove(["task", "ls", "--json", "--server", "http://127.0.0.1:1"]);
    expect(down.code).toBe(1);
    expect(JSON.parse(down.stderr)).toMatchObject({ error: { code: "server_unreachable" } });
  });

  it("CLI-16 without --json the error stays the one-line `error: CODE: message`", async () => {
    const r = await grove("task", "show", "task_missing");
    expect(r.stderr).toMatch(/^error: not_found: [^\n]*task_missing[^\n]*\n$/);
  });

  it("CLI-17 no help text names an internal id: requirement ids, issue numbers or record ids", async () => {
    const program = await buildProgram({ only: "all" });
    const texts: string[] = [];
    const walk = (c: Command) => {
      texts.push(c.helpInformation());
      c.commands.forEach(walk);
    };
    walk(program);
    expect(texts.length).toBeGreaterThan(40);
    const internal = /\b[A-Z]{2,5}-\d+\b|\bissue \d+|\b(task|ses|repo|msg|run|job)_[a-z0-9]{4,}/i;
    expect(texts.filter((t) => internal.test(t)).map((t) => t.split("\n")[0])).toEqual([]);
    const bundled = await runGrove(["agents", "--help"]);
    expect(bundled.code).toBe(0);
    expect(bundled.stdout).toMatch(/agent profiles/);
    expect(bundled.stdout).not.toMatch(internal);
  });
});
