import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { benchTmp } from "./changes.js";
import { seedHome } from "./seed-home.js";
import { fmtMs, ratio, series } from "./stats.js";
import { WebSocket } from "ws";
import { generatedRepo, median, type Row } from "./util.js";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));

/**
 * The server as `npm start` runs it (bundled), in its own process group, with the inspector on
 * a random loopback port so the bench can force a full GC before each RSS sample; resolves once
 * it listens.
 */
export async function startChild(home: string): Promise<{ url: string; child: ChildProcess; inspector: string }> {
  const env = { ...process.env, GROVE_HOME: home, GROVE_PORT: "0", GROVE_LOG_LEVEL: "warn", GROVE_DATABASE_URL: "", GROVE_AUTH_TOKEN: "" };
  const child = spawn(process.execPath, ["--inspect=127.0.0.1:0", "scripts/start.mjs"], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  let out = "";
  let inspector = "";
  child.stderr?.on("data", (d: Buffer) => {
    const m = /Debugger listening on (ws:\/\/\S+)/.exec(d.toString());
    if (m?.[1]) inspector = m[1];
    else if (!/For help, see|Debugger attached|Debugger ending|Waiting for the debugger/.test(d.toString())) process.stderr.write(d);
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m?.[1]) resolve(m[1]);
    });
    child.on("exit", (code) => reject(new Error(`server exited ${code}: ${out}`)));
  });
  return { url, child, inspector };
}

export function rssKiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return Number(m?.[1] ?? NaN);
}

/** A full garbage collection in the server, through its inspector (HeapProfiler.collectGarbage). */
async function collectGarbage(inspector: string): Promise<void> {
  const ws = new WebSocket(inspector);
  await new Promise<void>((resolve, reject) => {
    ws.on("open", () => ws.send(JSON.stringify({ id: 1, method: "HeapProfiler.collectGarbage" })));
    ws.on("message", (m: Buffer) => {
      if ((JSON.parse(m.toString()) as { id?: number }).id === 1) resolve();
    });
    ws.on("error", reject);
  });
  ws.close();
}

/**
 * RSS after the process settled: 5 samples, each taken right after a full GC and half a second
 * of quiet; the median (GC timing and allocator noise removed).
 */
export async function settledRss(pid: number, inspector: string): Promise<number> {
  const xs: number[] = [];
  for (let i = 0; i < 5; i++) {
    await new Promise((r) => setTimeout(r, 500));
    await collectGarbage(inspector);
    await new Promise((r) => setTimeout(r, 100));
    xs.push(rssKiB(pid));
  }
  return median(xs);
}

async function timed(url: string): Promise<{ ms: number; bytes: number }> {
  const t0 = performance.now();
  const r = await fetch(url);
  const body = await r.arrayBuffer();
  return { ms: performance.now() - t0, bytes: body.byteLength };
}

type Post = (path: string, body: unknown) => Promise<{ id?: string }>;

/**
 * Launches scripted agents until `target` are live (from `live`), in batches of 10 — what a busy
 * machine does — each kept live after a first turn; answers the new live count.
 */
export async function launchLiveAgents(post: Post, repositoryId: string, live: number, target: number): Promise<number> {
  while (live < target) {
    const batch = Math.min(10, target - live);
    const from = live;
    await Promise.all(
      Array.from({ length: batch }, async (_, i) => {
        const t = await post("/tasks", { title: `agent ${from + i}`, repositories: [{ repositoryId }] });
        const s = await post(`/tasks/${t.id}/sessions`, { prompt: "say hi" });
        if (!s.id) throw new Error(`launch failed: ${JSON.stringify(s)}`);
      }),
    );
    live += batch;
  }
  return live;
}

/**
 * Lists and memory at scale, against the server process `npm start` runs, with 10,000 tasks:
 * `GET /tasks` (whole array) and one summary page against a bare HTTP round trip (`GET /health`)
 * measured A B A B; then the server's RSS with 0, 50 and 100 live scripted agents.
 */
export async function scaleBench(rounds: number): Promise<Row[]> {
  const tmp = benchTmp();
  const home = mkdtempSync(join(tmp ?? tmpdir(), "grove-bench-scale-"));
  const repo = generatedRepo(200, "grove-bench-scale-repo-");
  const { repositoryId } = await seedHome(home, { tasks: 10_000, live: 0, repoPath: repo });
  const streamer = fileURLToPath(new URL("./streaming-agent.mjs", import.meta.url));
  writeFileSync(
    join(home, "agents.json"),
    JSON.stringify({ agents: [{ name: "streamer", command: process.execPath, args: [streamer], permissionPolicy: "auto_approve" }] }),
  );
  const { url, child, inspector } = await startChild(home);
  const pid = child.pid ?? 0;
  const api = `${url}/api/v1`;
  const post = async (path: string, body: unknown) => {
    const r = await fetch(`${api}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    return (await r.json()) as { id: string; state?: string };
  };
  const health: number[] = [];
  const full: number[] = [];
  const page: number[] = [];
  let fullBytes = 0;
  let pageBytes = 0;
  const rows: Row[] = [];
  try {
    const rssAtStart = await settledRss(pid, inspector);
    for (let i = 0; i < Math.max(rounds, 5) * 4; i++) {
      health.push((await timed(`${api}/health`)).ms);
      const f = await timed(`${api}/tasks`);
      full.push(f.ms);
      fullBytes = f.bytes;
      const p = await timed(`${api}/tasks?view=summary&limit=100`);
      page.push(p.ms);
      pageBytes = p.bytes;
    }
    const raw = `GET /health: ${fmtMs(series(health))}`;
    rows.push(
      {
        benchmark: `lists: GET /tasks, 10,000 tasks (whole array, ${(fullBytes / 1e6).toFixed(1)} MB)`,
        grove: fmtMs(series(full)),
        raw,
        ratio: ratio(full, health),
        target: "-",
      },
      {
        benchmark: `lists: GET /tasks?view=summary&limit=100 (one board page, ${(pageBytes / 1e3).toFixed(0)} kB)`,
        grove: fmtMs(series(page)),
        raw,
        ratio: ratio(page, health),
        target: "a few round trips",
      },
    );

    // A long session: 10,000 streamed chunks, twice; RSS (after a full GC) before and after each.
    const get = async (path: string) => (await (await fetch(`${api}${path}`)).json()) as any;
    const streamOnce = async (n: number): Promise<number> => {
      const t = await post("/tasks", { title: `stream ${n}`, repositories: [{ repositoryId }] });
      const s = await post(`/tasks/${t.id}/sessions`, { agent: "streamer", prompt: "stream" });
      if (!s.id) throw new Error(`launch failed: ${JSON.stringify(s)}`);
      for (;;) {
        const cur = await get(`/sessions/${s.id}`);
        if (cur.state !== "running" && cur.state !== "starting") break;
        await new Promise((r) => setTimeout(r, 200));
      }
      const msgs = (await get(`/sessions/${s.id}/messages`)) as { role: string; text: string }[];
      await fetch(`${api}/sessions/${s.id}`, { method: "DELETE", headers: { "content-type": "application/json" } });
      return msgs.filter((m) => m.role === "agent").reduce((a, m) => a + m.text.length, 0);
    };
    const beforeStream = await settledRss(pid, inspector);
    const chars1 = await streamOnce(1);
    const afterStream1 = await settledRss(pid, inspector);
    const chars2 = await streamOnce(2);
    const afterStream2 = await settledRss(pid, inspector);
    const mibOf = (k: number) => `${(k / 1024).toFixed(1)} MiB`;
    rows.push({
      benchmark: `memory: a session streaming 10,000 chunks (${chars1 + chars2} chars stored), twice`,
      grove: `${mibOf(beforeStream)} → ${mibOf(afterStream1)} → ${mibOf(afterStream2)}`,
      raw: "-",
      ratio: `+${((afterStream1 - beforeStream) / 1024).toFixed(1)} / +${((afterStream2 - afterStream1) / 1024).toFixed(1)} MiB`,
      target: "no growth",
      data: { rssKiB: [beforeStream, afterStream1, afterStream2], chars: [chars1, chars2] },
    });

    // Memory: live agents in batches (a busy machine launches 100 agents slowly). The 0-agent
    // figure is taken right before, after the lists and the stream, so only agents differ.
    const rss: Record<number, number> = { 0: await settledRss(pid, inspector) };
    let live = 0;
    for (const target of [50, 100]) {
      live = await launchLiveAgents(post, repositoryId, live, target);
      rss[target] = await settledRss(pid, inspector);
    }
    const perAgent = ((rss[100] ?? 0) - (rss[0] ?? 0)) / 100 / 1024;
    const perAgent50 = ((rss[50] ?? 0) - (rss[0] ?? 0)) / 50 / 1024;
    const mib = (k: number | undefined) => `${((k ?? 0) / 1024).toFixed(0)} MiB`;
    rows.push({
      benchmark: "memory: server RSS with 0 / 50 / 100 live scripted agents (10,000 tasks; median of 5 samples, each after a full GC)",
      grove: `${mib(rss[0])} / ${mib(rss[50])} / ${mib(rss[100])}`,
      raw: `at start: ${mib(rssAtStart)}`,
      ratio: `${perAgent.toFixed(2)} MiB per agent (0→100; 0→50: ${perAgent50.toFixed(2)})`,
      target: "< 1 MiB per agent",
      data: { rssKiB: rss, rssAtStartKiB: rssAtStart, perAgentMiB: perAgent, perAgent50MiB: perAgent50 },
    });
  } finally {
    process.kill(-pid, "SIGTERM");
    await new Promise((r) => child.once("exit", r));
    rmSync(home, { recursive: true, force: true });
    rmSync(repo, { recursive: true, force: true });
  }
  return rows;
}
