import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { benchTmp } from "./changes.js";
import { seedHome } from "./seed-home.js";
import { fmtMs, ratio, series } from "./stats.js";
import { generatedRepo, type Row } from "./util.js";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));

/** The server as `npm start` runs it (bundled), in its own process group; resolves once it listens. */
async function startChild(home: string): Promise<{ url: string; child: ChildProcess }> {
  const env = { ...process.env, GROVE_HOME: home, GROVE_PORT: "0", GROVE_LOG_LEVEL: "warn", GROVE_DATABASE_URL: "", GROVE_AUTH_TOKEN: "" };
  const child = spawn(process.execPath, ["scripts/start.mjs"], { cwd: ROOT, env, stdio: ["ignore", "pipe", "inherit"], detached: true });
  let out = "";
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m?.[1]) resolve(m[1]);
    });
    child.on("exit", (code) => reject(new Error(`server exited ${code}: ${out}`)));
  });
  return { url, child };
}

function rssKiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return Number(m?.[1] ?? NaN);
}

/** RSS after the process settled (the lowest of a few samples a second apart: GC noise removed). */
async function settledRss(pid: number): Promise<number> {
  const xs: number[] = [];
  for (let i = 0; i < 5; i++) {
    await new Promise((r) => setTimeout(r, 1000));
    xs.push(rssKiB(pid));
  }
  return Math.min(...xs);
}

async function timed(url: string): Promise<{ ms: number; bytes: number }> {
  const t0 = performance.now();
  const r = await fetch(url);
  const body = await r.arrayBuffer();
  return { ms: performance.now() - t0, bytes: body.byteLength };
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
  const { url, child } = await startChild(home);
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
    // Before any list request: a 3 MB answer leaves garbage that would inflate the 0-agent figure.
    const rss: Record<number, number> = { 0: await settledRss(pid) };
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
      { benchmark: `lists: GET /tasks, 10,000 tasks (whole array, ${(fullBytes / 1e6).toFixed(1)} MB)`, grove: fmtMs(series(full)), raw, ratio: ratio(full, health), target: "-" },
      { benchmark: `lists: GET /tasks?view=summary&limit=100 (one board page, ${(pageBytes / 1e3).toFixed(0)} kB)`, grove: fmtMs(series(page)), raw, ratio: ratio(page, health), target: "a few round trips" },
    );

    // Memory: live agents in batches (a busy machine launches 100 agents slowly).
    let live = 0;
    for (const target of [50, 100]) {
      while (live < target) {
        const batch = Math.min(10, target - live);
        await Promise.all(
          Array.from({ length: batch }, async (_, i) => {
            const t = await post("/tasks", { title: `agent ${live + i}`, repositories: [{ repositoryId }] });
            const s = await post(`/tasks/${t.id}/sessions`, { prompt: "say hi" });
            if (!s.id) throw new Error(`launch failed: ${JSON.stringify(s)}`);
          }),
        );
        live += batch;
      }
      rss[target] = await settledRss(pid);
    }
    const perAgent = (((rss[100] ?? 0) - (rss[0] ?? 0)) / 100 / 1024).toFixed(2);
    const mib = (k: number | undefined) => `${((k ?? 0) / 1024).toFixed(0)} MiB`;
    rows.push({
      benchmark: "memory: server RSS with 0 / 50 / 100 live scripted agents (10,000 tasks)",
      grove: `${mib(rss[0])} / ${mib(rss[50])} / ${mib(rss[100])}`,
      raw: "-",
      ratio: `${perAgent} MiB per agent`,
      target: "< 1 MiB per agent",
    });
  } finally {
    process.kill(-pid, "SIGTERM");
    await new Promise((r) => child.once("exit", r));
    rmSync(home, { recursive: true, force: true });
    rmSync(repo, { recursive: true, force: true });
  }
  return rows;
}
