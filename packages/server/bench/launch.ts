import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";
import { scriptedAgentCommand } from "../src/agents/profiles.js";
import { startServer } from "../src/app.js";
import { series, fmtMs, timedRow } from "./stats.js";
import { generatedRepo, gitIn, requestJson, type Row } from "./util.js";

/** The raw work of a launch: `git worktree add` + spawn the scripted agent + initialize/session/new. */
export async function rawLaunch(repo: string, path: string, branch: string): Promise<number> {
  const t0 = performance.now();
  gitIn(repo, "worktree", "add", "-q", "-b", branch, "--", path, "main");
  const { command, args } = scriptedAgentCommand();
  const child = spawn(command, args, { cwd: path, stdio: ["pipe", "pipe", "ignore"] });
  const stream = acp.ndJsonStream(Writable.toWeb(child.stdin) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>);
  const conn = acp.client({ name: "bench" }).connect(stream);
  await conn.agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
  await conn.agent.request(acp.methods.agent.session.new, { cwd: path, mcpServers: [] });
  const elapsed = performance.now() - t0;
  child.kill("SIGKILL");
  return elapsed;
}

/**
 * Launch overhead: `POST /tasks/{id}/sessions` until the agent's first update, against the raw
 * work timed in the same run (A B A B). Attach: git processes spawned and latency.
 */
export async function launchBench(rounds: number): Promise<Row[]> {
  const repo = generatedRepo(10_000);
  const home = mkdtempSync(join(tmpdir(), "grove-bench-home-"));
  const server = await startServer({
    env: { ...process.env, GROVE_HOME: home, GROVE_PORT: "0", GROVE_LOG_LEVEL: "warn", GROVE_DATABASE_URL: "" },
    quiet: true,
  });
  const api = (method: string, path: string, body?: unknown) => requestJson(method, `${server.url}/api/v1${path}`, body);
  const repoRow = await api("POST", "/repositories", { path: repo });
  const grove: number[] = [];
  const groveUp: number[] = [];
  const raw: number[] = [];
  const attachMs: number[] = [];
  const attachGit: number[] = [];
  try {
    // Each measurement starts once the server is quiet (no git process for a second): the
    // background work after a launch (diff stat, watchers, the prompt's turn) runs in this very
    // process and must not land on the next measurement, raw or Grove.
    const settle = async () => {
      for (let last = -1; server.deps.git.spawnCount !== last; ) {
        last = server.deps.git.spawnCount;
        await new Promise((r) => setTimeout(r, 1000));
      }
    };
    const groveLaunch = async (i: number) => {
      // The launch itself: POST without a prompt answers once the agent is up (session/new done).
      const up = await api("POST", "/tasks", { title: `bench up ${i}`, repositories: [{ repositoryId: repoRow.id }] });
      const u0 = performance.now();
      await api("POST", `/tasks/${up.id}/sessions`, {});
      groveUp.push(performance.now() - u0);
      await settle();
      const task = await api("POST", "/tasks", { title: `bench ${i}`, repositories: [{ repositoryId: repoRow.id }] });
      const t0 = performance.now();
      const firstUpdate = new Promise<void>((res) => {
        const off = server.deps.bus.subscribe((f) => {
          if (f.type === "session.message" && (f.data as { message: { role: string } }).message.role !== "user") {
            off();
            res();
          }
        });
      });
      await api("POST", `/tasks/${task.id}/sessions`, { prompt: "say hi" });
      await firstUpdate;
      grove.push(performance.now() - t0);
      // Attach: a second session on the same task, once the first prompt's background work
      // (Changes and diff stats after its turn) is done: that work is not the attach's.
      await settle();
      const before = server.deps.git.spawnCount;
      const a0 = performance.now();
      await api("POST", `/tasks/${task.id}/sessions`, {});
      attachMs.push(performance.now() - a0);
      attachGit.push(server.deps.git.spawnCount - before);
    };
    // A B, then B A: drift falls on both sides alike.
    for (let i = 0; i < rounds; i++) {
      await settle();
      if (i % 2 === 0) raw.push(await rawLaunch(repo, join(home, `raw-${i}`), `raw-${i}`));
      await settle();
      await groveLaunch(i);
      await settle();
      if (i % 2 === 1) raw.push(await rawLaunch(repo, join(home, `raw-${i}`), `raw-${i}`));
    }
  } finally {
    await server.close();
    rmSync(repo, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  }
  return [
    timedRow("launch: POST /sessions answered, agent up (10k files)", groveUp, raw, "≤ 1.15×", "worktree add + agent spawn + initialize/session/new: "),
    timedRow("launch: POST /sessions with a prompt → agent's first update", grove, raw, "-", "same raw: "),
    { benchmark: "attach: git processes spawned", grove: String(Math.max(...attachGit)), raw: "-", ratio: "-", target: "≤ 3, no network" },
    { benchmark: "attach: latency (incl. agent start)", grove: fmtMs(series(attachMs)), raw: "-", ratio: "-", target: "-" },
  ];
}
