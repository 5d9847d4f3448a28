import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeRepo, type TestRepo } from "../fixture/git.js";
import { startTestServer, waitFor, waitForSession, type TestServer } from "../fixture/server.js";
import { runGrove } from "./run-cli.js";

// The commands and edges with the bundled CLI against a real server and the real
// scripted agent.
describe("grove commands against a real server", () => {
  let srv: TestServer;
  let alpha: TestRepo;
  let beta: TestRepo;
  let taskId: string;
  let sessionId: string;
  const grove = (...args: string[]) => runGrove([...args, "--server", srv.url]);

  beforeAll(async () => {
    srv = await startTestServer("sqlite");
    alpha = await makeRepo({ name: "alpha" });
    beta = await makeRepo({ name: "beta" });
    for (const r of [alpha, beta]) expect((await grove("repo", "add", r.path)).code).toBe(0);
    const created = await grove("task", "create", "--title", "Two repositories", "--repo", "alpha", "--repo", "beta", "--quiet");
    taskId = created.stdout.trim();
    const started = await grove("task", "start", taskId, "--agent", "scripted", "--prompt", "say hi", "--wait", "--quiet");
    expect(started.code).toBe(0);
    sessionId = started.stdout.trim();
  });
  afterAll(async () => {
    await srv?.close();
    await alpha?.cleanup();
    await beta?.cleanup();
  });

  it("--quiet prints only the new id", () => {
    expect(taskId).toMatch(/^task_\S+$/);
    expect(sessionId).toMatch(/^ses_\S+$/);
  });

  it("session prompt --wait exits 0 after a turn that ends normally", async () => {
    const r = await grove("session", "prompt", sessionId, "say all good", "--wait");
    expect(r.stderr).not.toContain("error");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${sessionId}  Waiting for you\n`);
    // CLI-17: the progress on stderr is in words too; --json keeps the raw state.
    expect(r.stderr).toContain(`session ${sessionId}: Waiting for you`);
    expect(r.stderr).not.toContain("waiting_for_input");
  });

  it("session prompt --wait exits 1 after `fail`", async () => {
    const r = await grove("session", "prompt", sessionId, "fail cannot do that", "--wait");
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: turn_failed: the turn of session ses_\S+ ended with refusal: cannot do that$/m);
    // …and the session is still usable: the next normal turn exits 0 again.
    expect((await grove("session", "prompt", sessionId, "say recovered", "--wait")).code).toBe(0);
  });

  it("WEB-37 session prompt --queue queues a follow-up during a turn; it runs when the turn ends; with --wait or --comments it is refused", async () => {
    // The turn sleeps until the test ends it (a cancel ends a turn like any end, WEB-37): it is
    // still under way when the follow-up is queued, however slow the machine.
    expect((await grove("session", "prompt", sessionId, "sleep 600000")).code).toBe(0);
    const q = await grove("session", "prompt", sessionId, "say from the queue", "--queue");
    expect(q.code, q.stderr).toBe(0);
    expect(q.stdout).toBe(`queued for session ${sessionId} (1 waiting for the turn to end)\n`);
    expect(((await srv.api("GET", `/sessions/${sessionId}`)).body.queued as { text: string }[]).map((x) => x.text)).toEqual(["say from the queue"]);
    expect((await srv.api("POST", `/sessions/${sessionId}/cancel`)).status).toBe(202);
    await waitFor(
      async () =>
        ((await srv.api("GET", `/sessions/${sessionId}/messages`)).body as { role: string; text: string }[]).some(
          (m) => m.role === "agent" && m.text.includes("from the queue"),
        ),
      "the queued prompt's turn",
      60_000,
    );
    await waitForSession(srv.api, sessionId, ["waiting_for_input"], 60_000);
    const bad = await grove("session", "prompt", sessionId, "say x", "--queue", "--wait");
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/invalid_arguments: --queue and --wait/);
  });

  it("CLI-17 session ls and task show say the sessions' states in words, and --json includes them raw", async () => {
    const ls = await grove("session", "ls", taskId);
    expect(ls.stdout).toMatch(new RegExp(`^${sessionId}\\s+scripted\\s+Waiting for you`, "m"));
    expect(ls.stdout).not.toContain("waiting_for_input");
    const raw = JSON.parse((await grove("session", "ls", taskId, "--json")).stdout) as { id: string; state: string }[];
    expect(raw).toEqual([expect.objectContaining({ id: sessionId, state: "waiting_for_input" })]);
    // UX-3: the human output says states in the person's words; --json keeps the raw values.
    const human = await grove("task", "show", taskId);
    expect(human.stdout).toMatch(new RegExp(`^\\s+${sessionId}\\s+scripted\\s+Waiting for you$`, "m"));
    expect(human.stdout).not.toContain("waiting_for_input");
    const shown = JSON.parse((await grove("task", "show", taskId, "--json")).stdout) as { id: string; sessions: { id: string }[] };
    expect(shown.id).toBe(taskId);
    expect(shown.sessions.map((s) => s.id)).toEqual([sessionId]);
  });

  it("task diff labels repositories by name, --json keeps the ids", async () => {
    const human = (await grove("task", "diff", taskId)).stdout.split("\n").filter((l) => !l.startsWith(" "));
    expect(human.filter(Boolean).map((l) => l.split(/\s+/)[0])).toEqual(["alpha", "beta"]);
    const json = JSON.parse((await grove("task", "diff", taskId, "--json")).stdout) as { repositories: { repositoryId: string }[] };
    for (const r of json.repositories) expect(r.repositoryId).toMatch(/^repo_/);
  });

  it("task start prints no progress before a validation error", async () => {
    const unknownAgent = await grove("task", "start", taskId, "--agent", "nope");
    expect(unknownAgent.code).toBe(1);
    expect(unknownAgent.stderr).toMatch(/^error: agent_unknown: [^\n]*\n$/);
    const missing = await grove("task", "start", "task_missing");
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^error: not_found: [^\n]*\n$/);
  });

  it("resume and rm of a running session answer the same code, session_running", async () => {
    expect((await grove("session", "prompt", sessionId, "sleep 20000")).code).toBe(0);
    await waitForSession(srv.api, sessionId, ["running"]);
    const resume = await grove("session", "resume", sessionId);
    const rm = await grove("session", "rm", sessionId);
    expect([resume.code, rm.code]).toEqual([1, 1]);
    expect(resume.stderr).toMatch(/^error: session_running: /);
    expect(rm.stderr).toMatch(/^error: session_running: /);
    expect((await grove("session", "cancel", sessionId)).code).toBe(0);
    await waitForSession(srv.api, sessionId, ["waiting_for_input"]);
  });

  it("errors name CLI flags: task rm of dirty work asks for --discard-changes", async () => {
    expect((await grove("session", "prompt", sessionId, "write alpha/wip.txt unsaved", "--wait")).code).toBe(0);
    const r = await grove("task", "rm", taskId);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: dirty_worktree: .*--discard-changes/);
    expect(r.stderr).not.toContain("discardChanges");
  });

  it("task reset removes the worktrees through a cleanup job; repo show prints the settings", async () => {
    const r = await grove("task", "reset", taskId, "--json");
    expect(r.code).toBe(0);
    const { jobId } = JSON.parse(r.stdout) as { jobId: string };
    await waitFor(
      async () =>
        ((await srv.api("GET", `/cleanup-jobs?taskId=${taskId}`)).body as { id: string; state: string }[]).find(
          (j) => j.id === jobId && j.state === "succeeded",
        ),
      "reset job",
    );
    const show = await grove("repo", "show", "alpha");
    expect(show.stdout).toContain("name: alpha");
    expect(show.stdout).toContain(`location: ${alpha.path}`);
  });
});

describe("the default server and serve's own options", () => {
  it("GROVE_PORT=abc is an error naming GROVE_PORT, not --server", async () => {
    const r = await runGrove(["task", "ls"], { env: { GROVE_PORT: "abc" } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: invalid_config: GROVE_PORT must be a port number/);
    expect(r.stderr).not.toContain("--server is not a URL");
  });

  it("--help shows the default server from GROVE_PORT", async () => {
    const r = await runGrove(["task", "ls", "--help"], { env: { GROVE_PORT: "7777" } });
    expect(r.stdout.replace(/\s+/g, " ")).toContain("default http://127.0.0.1:7777, from GROVE_PORT");
  });

  it("grove serve lists only its own options and refuses the client's", async () => {
    const help = await runGrove(["serve", "--help"]);
    expect(help.stdout).toContain("--port <port>");
    expect(help.stdout).not.toMatch(/--json|--server/);
    const r = await runGrove(["serve", "--json"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: invalid_arguments: grove serve takes --host and --port/);
  });

  it("grove completion prints scripts for bash, zsh and fish; the bash one is valid shell", async () => {
    const bash = await runGrove(["completion", "bash"]);
    expect(bash.stdout).toContain("complete -F _grove_complete grove");
    const sessionWords = /"session"\) words="([^"]*)"/.exec(bash.stdout)?.[1]?.split(" ");
    expect(sessionWords).toEqual(expect.arrayContaining(["ls", "prompt", "show", "--help"]));
    execFileSync("bash", ["-n"], { input: bash.stdout });
    expect((await runGrove(["completion", "zsh"])).stdout).toContain("bashcompinit");
    const fishTop = /complete -c grove -n '__fish_use_subcommand' -a '([^']*)'/.exec((await runGrove(["completion", "fish"])).stdout)?.[1]?.split(" ");
    expect(fishTop).toEqual(expect.arrayContaining(["serve", "repo", "task", "session", "agents", "doctor", "runners", "inbox", "usage", "completion"]));
    expect((await runGrove(["completion", "tcsh"])).stderr).toMatch(/^error: invalid_arguments: unknown shell/);
  });
});
