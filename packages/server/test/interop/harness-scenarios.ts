import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { freshDatabase } from "../fixture/db.js";
import { repoAndTask } from "../fixture/scenario.js";
import { apiClient, spawnServer, waitFor, waitForSession, type TestServer } from "../fixture/server.js";
import { runGrove } from "../cli/run-cli.js";
import { linkBridge } from "./bridges.js";
import {
  type InteropServer,
  type Api,
  type Agent,
  messages,
  pendingAsk,
  gitStatus,
  runningIn,
  allToolsClosed,
  type InteropSandbox,
  writeInteropProfile,
} from "./harness.js";

/**
 * The write → ask → allow (by API) → lands-in-the-worktree-only acceptance, shared by every
 * agent: `script` makes the model write `hello.txt` in the worktree and then say `doneText`.
 */
export async function writeLandsInWorktree(
  server: InteropServer,
  opts: { script(target: string): void; doneText: string; agentHome: string; expectMode: string },
): Promise<void> {
  const { sid, taskId, worktree, repoPath, api } = await server.launch();
  expect((await api("GET", `/sessions/${sid}`)).body.modes.currentModeId).toBe(opts.expectMode);
  const target = `${worktree}/hello.txt`;
  opts.script(target);
  expect((await api("POST", `/sessions/${sid}/prompt`, { prompt: "Please create hello.txt" })).status).toBe(202);
  const ask = await pendingAsk(api, sid);
  expect(ask.toolKind).toBe("edit");
  expect(() => readFileSync(target)).toThrow(); // nothing written before the person allowed it
  const allow = ask.options.find((o) => o.kind === "allow_once")!;
  expect((await api("POST", `/sessions/${sid}/permissions/${ask.requestId}`, { optionId: allow.optionId })).status).toBe(204);
  await waitForSession(api, sid, ["waiting_for_input"], 60_000);
  expect(readFileSync(target, "utf8")).toMatch(/^hello from /);
  expect(gitStatus(repoPath)).toBe("");
  expect(() => readFileSync(`${opts.agentHome}/hello.txt`)).toThrow();
  const msgs = await messages(api, sid);
  const tools = msgs.filter((m) => m.role === "tool");
  expect(tools.length).toBeGreaterThan(0);
  expect(new Set(tools.map((t) => t.data?.toolCallId)).size).toBe(tools.length);
  expect(tools.every((t) => t.data?.status === "completed")).toBe(true);
  expect(msgs.some((m) => m.role === "agent" && m.text.includes(opts.doneText))).toBe(true);
  const changes = (await api("GET", `/tasks/${taskId}/changes`)).body;
  const files = changes.repositories[0].files.map((f: { path: string; status: string }) => `${f.status} ${f.path}`);
  expect(files).toEqual(
    gitStatus(worktree)
      .trim()
      .split("\n")
      .map((l) => `untracked ${l.slice(3)}`),
  );
}

/**
 * kill -9 of the server mid-turn → restart → the transcript marks the interrupted turn and no
 * tool row stays open → the next prompt resumes the agent's session with `session/load` in the
 * same cwd, and the model sees the earlier prompt.
 */
export async function killRestartResume(
  agent: Agent,
  model: { streamSlowly(text: string): void; answer(text: string): void; mainCount(): number; userTextsSince(index: number): string },
  sandbox: InteropSandbox,
): Promise<void> {
  const db = await freshDatabase("sqlite");
  linkBridge(db.home, agent);
  writeInteropProfile(db.home, agent, sandbox);
  const env = { GROVE_HOME: db.home };
  // A loaded machine can take long to start a child server; the measure here is not its speed.
  let server = await spawnServer(env, { startTimeoutMs: 120_000 });
  try {
    const api = apiClient(server.url);
    const { task } = await repoAndTask({ api } as TestServer);
    const s = await api("POST", `/tasks/${task.id}/sessions`, { agent });
    expect(s.status, JSON.stringify(s.body)).toBe(201);
    const sid = s.body.id as string;
    const cwd = (await api("GET", `/sessions/${sid}/workspace`)).body.workspacePath as string;
    model.streamSlowly("thinking out loud");
    await api("POST", `/sessions/${sid}/prompt`, { prompt: "Remember the word PAPAYA." });
    await waitFor(
      async () => (await messages(api, sid)).some((m) => m.role === "agent" && m.text.includes("thinking out loud")),
      "the streamed answer",
      60_000,
    );
    server.child.kill("SIGKILL");
    await server.exited;

    server = await spawnServer(env, { startTimeoutMs: 120_000 });
    const api2 = apiClient(server.url);
    await waitForSession(api2, sid, ["waiting_for_input"]);
    const marked = await messages(api2, sid);
    expect(marked.some((m) => m.role === "system" && /interrupted/.test(m.text))).toBe(true);
    expect(allToolsClosed(marked)).toBe(true);

    const before = model.mainCount();
    model.answer("The word was PAPAYA.");
    expect((await api2("POST", `/sessions/${sid}/prompt`, { prompt: "Which word?" })).status).toBe(202);
    await waitForSession(api2, sid, ["waiting_for_input"], 60_000);
    expect(model.mainCount()).toBeGreaterThan(before);
    expect(model.userTextsSince(before)).toContain("Remember the word PAPAYA.");
    const frames = readFileSync(`${db.home}/logs/${sid}.acp.jsonl`, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l).msg);
    const loads = frames.filter((m) => m.method === "session/load");
    expect(loads).toHaveLength(1);
    expect(loads[0].params.cwd).toBe(cwd);
    expect((await messages(api2, sid)).some((m) => m.role === "agent" && m.text.includes("The word was PAPAYA."))).toBe(true);
  } finally {
    // A graceful stop ends the resumed agent too (codex-acp does not exit when its stdin closes;
    // after a kill -9 only the next start's recovery would stop it, and there is none here).
    server.child.kill("SIGTERM");
    await Promise.race([server.exited, new Promise((r) => setTimeout(r, 20_000))]);
    server.child.kill("SIGKILL");
    await server.exited;
    await db.drop();
    rmSync(db.home, { recursive: true, force: true });
  }
}

/**
 * How long a cancelled turn may take to end here. The model never stops on its own in these
 * turns (it streams forever / its tool runs `tail -f`), so ending at all proves the cancel; AG-1's
 * 2 s holds on a quiet machine, and a third-party agent on a loaded 2-core machine (CI beside
 * other suites) has been seen at 2–4 s, which is load, not a lost cancel.
 */
const CANCEL_BOUND_MS = 10_000;

/**
 * Cancel mid-stream, then cancel while an allowed long-running shell tool runs: each turn ends
 * promptly (see CANCEL_BOUND_MS) with every tool row closed. `script` sets the model's next answers.
 */
export async function cancelEndsTurnFast(server: InteropServer, model: { streamSlowly(text: string): void; runForever(): void }): Promise<void> {
  const { sid, api, worktree } = await server.launch();
  model.streamSlowly("streaming slowly");
  expect((await api("POST", `/sessions/${sid}/prompt`, { prompt: "talk for a long time" })).status).toBe(202);
  await waitFor(
    async () => (await messages(api, sid)).some((m) => m.role === "agent" && m.text.includes("streaming slowly")),
    "the first streamed chunk",
    60_000,
  );
  let t0 = Date.now();
  expect((await api("POST", `/sessions/${sid}/cancel`)).status).toBe(202);
  await waitForSession(api, sid, ["waiting_for_input"], CANCEL_BOUND_MS);
  expect(Date.now() - t0).toBeLessThan(CANCEL_BOUND_MS);

  model.runForever();
  expect((await api("POST", `/sessions/${sid}/prompt`, { prompt: "wait a while" })).status).toBe(202);
  const ask = await pendingAsk(api, sid);
  await api("POST", `/sessions/${sid}/permissions/${ask.requestId}`, { optionId: ask.options.find((o) => o.kind === "allow_once")!.optionId });
  await waitFor(() => runningIn(worktree, "tail -f /dev/null"), "the shell command to run", 30_000);
  t0 = Date.now();
  expect((await api("POST", `/sessions/${sid}/cancel`)).status).toBe(202);
  await waitForSession(api, sid, ["waiting_for_input"], CANCEL_BOUND_MS);
  await waitFor(async () => allToolsClosed(await messages(api, sid)), "every tool row closed", CANCEL_BOUND_MS);
  expect(Date.now() - t0).toBeLessThan(CANCEL_BOUND_MS);
}

/**
 * AG-2 CLI: a shell command the model runs asks Grove, `grove session show` lists the request and
 * `grove session answer … allow` answers it; the command's file lands in the worktree and every
 * tool row ends `completed`. `script(worktree)` makes the model run a command that writes `file`.
 */
export async function shellAskAnsweredByCli(server: InteropServer, opts: { script(worktree: string): void; file: string; content: string }): Promise<void> {
  const { sid, worktree, api, url } = await server.launch();
  opts.script(worktree);
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
  expect(readFileSync(join(worktree, opts.file), "utf8")).toBe(opts.content);
  const after = await runGrove(["session", "show", sid, "--server", url]);
  expect(after.stdout).toMatch(/tool \[completed\]/);
  expect(after.stdout).not.toMatch(/tool \[(pending|in_progress)\]/);
}

/**
 * AG-3 no credentials → the start (or its first turn) fails `agent_auth_required` with the
 * profile's fix, which names `mentions`; then the fix is followed (`follow()` gives the agent its
 * credentials the way the fix says) and a new session on the same server does real work: the
 * model sees the prompt and its answer lands in the transcript.
 */
export async function authFixWorks(
  server: InteropServer,
  agent: Agent,
  opts: {
    withoutCredentials(): () => void;
    mentions: string[];
    follow(): void;
    answer(text: string): void;
    sawPrompt(text: string): boolean;
    boundMs?: number;
  },
): Promise<{ api: Api; failedSessionId: string }> {
  const srv = await server.bare();
  const { task } = await repoAndTask(srv);
  const restore = opts.withoutCredentials();
  let failed: { id: string; lastError: { code: string; message: string } };
  try {
    const t0 = Date.now();
    const s = await srv.api("POST", `/tasks/${task.id}/sessions`, { agent, prompt: "hello" });
    expect(s.status, JSON.stringify(s.body)).toBe(201);
    failed = s.body.state === "failed" ? s.body : await waitForSession(srv.api, s.body.id, ["failed"], opts.boundMs ?? 60_000);
    expect(Date.now() - t0).toBeLessThan(opts.boundMs ?? 90_000);
  } finally {
    restore();
  }
  expect(failed.lastError.code, failed.lastError.message).toBe("agent_auth_required");
  for (const m of opts.mentions) expect(failed.lastError.message).toContain(m);
  opts.follow();
  opts.answer("Signed in and working.");
  const again = await srv.api("POST", `/tasks/${task.id}/sessions`, { agent, prompt: "Are you signed in?" });
  expect(again.status, JSON.stringify(again.body)).toBe(201);
  const sid = again.body.id as string;
  const settled = await waitForSession(srv.api, sid, ["waiting_for_input", "failed"], 120_000);
  expect(settled.lastError, JSON.stringify(settled.lastError)).toBeNull();
  expect(opts.sawPrompt("Are you signed in?")).toBe(true);
  expect((await messages(srv.api, sid)).some((m) => m.role === "agent" && m.text.includes("Signed in and working."))).toBe(true);
  return { api: srv.api, failedSessionId: failed.id };
}
