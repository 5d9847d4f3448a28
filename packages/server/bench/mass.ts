import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { benchTmp } from "./changes.js";
import { launchLiveAgents, settledRss, startChild } from "./scale.js";
import { crashAgain, seedHome } from "./seed-home.js";
import { timeTo } from "./startup.js";
import { fmtMs, ratio, series } from "./stats.js";
import { generatedRepo, median, type Row } from "./util.js";
import { RAW_BOARD } from "./web.js";

const CHROMIUM = process.env.GROVE_CHROMIUM ?? "/usr/bin/chromium";

function p99(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * 0.99))] ?? 0;
}

async function healthTimes(api: string, n: number): Promise<number[]> {
  const xs: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await (await fetch(`${api}/health`)).arrayBuffer();
    xs.push(performance.now() - t0);
  }
  return xs;
}

/**
 * Scale of one runner (WT-10's neighbours in the monorepo issue): a home with 100,000 tasks
 * (GROVE_BENCH_MASS_TASKS) — `node scripts/start.mjs` until it listens against `node -e 0`, the
 * board's first screen in Chromium against a plain page making the same five reads — then 200
 * live scripted agents (GROVE_BENCH_MASS_AGENTS) on that server: its RSS per agent (each sample
 * after a full GC) and `GET /health` p99 with them live against the same server with none.
 */
export async function massBench(rounds: number): Promise<Row[]> {
  const tasks = Number(process.env.GROVE_BENCH_MASS_TASKS ?? 100_000);
  const agents = Number(process.env.GROVE_BENCH_MASS_AGENTS ?? 200);
  const tmp = benchTmp();
  const home = mkdtempSync(join(tmp ?? tmpdir(), "grove-bench-mass-"));
  const repo = generatedRepo(200, "grove-bench-mass-repo-");
  const { repositoryId } = await seedHome(home, { tasks, live: 100, repoPath: repo });
  const env = { ...process.env, GROVE_HOME: home, GROVE_PORT: "0", GROVE_LOG_LEVEL: "warn", GROVE_DATABASE_URL: "", GROVE_AUTH_TOKEN: "" };
  const taskLabel = tasks.toLocaleString("en-US");
  const rows: Row[] = [];
  try {
    // Start-up with `tasks` tasks and 100 sessions a crash left running (recovered each time).
    await timeTo(process.execPath, ["scripts/start.mjs"], env, "listening on");
    const starts: number[] = [];
    const raw: number[] = [];
    for (let i = 0; i < rounds; i++) {
      raw.push(await timeTo(process.execPath, ["-e", "0"], env));
      await crashAgain(home);
      starts.push(await timeTo(process.execPath, ["scripts/start.mjs"], env, "listening on"));
    }
    rows.push({
      benchmark: `mass: start-up, \`node scripts/start.mjs\` → listening (${taskLabel} tasks, 100 sessions to recover) [${rounds} rounds]`,
      grove: fmtMs(series(starts)),
      raw: `node -e 0: ${fmtMs(series(raw))}`,
      ratio: ratio(starts, raw),
      target: "< 1000 ms",
      data: { grove: series(starts), raw: series(raw) },
    });

    const { url, child, inspector } = await startChild(home);
    const pid = child.pid ?? 0;
    const api = `${url}/api/v1`;
    try {
      // The board's first screen against the real API over `tasks` tasks (the page's column reads
      // and exact counts are what grows with the table), A B A B against the plain page.
      const browser = await chromium.launch({
        executablePath: CHROMIUM,
        headless: true,
        args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking", "--no-first-run"],
      });
      try {
        const firsts: number[] = [];
        const raws: number[] = [];
        for (let round = 0; round < rounds; round++) {
          const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
          await page.goto(url + "/");
          await page.locator(".column[data-state=done] .task-card").first().waitFor({ timeout: 60_000 });
          firsts.push(await page.evaluate(() => performance.now()));
          await page.close();
          const rawPage = await browser.newPage({ viewport: { width: 1400, height: 900 } });
          await rawPage.route("**/bench-raw-board", (r) => r.fulfill({ status: 200, contentType: "text/html", body: RAW_BOARD }));
          await rawPage.goto(url + "/bench-raw-board");
          await rawPage.locator("section[data-state=done] .task-card").first().waitFor({ timeout: 60_000 });
          raws.push(await rawPage.evaluate(() => performance.now()));
          await rawPage.close();
        }
        rows.push({
          benchmark: `mass: board first screen, ${taskLabel} tasks, real API [${rounds} rounds]`,
          grove: fmtMs(series(firsts)),
          raw: `plain page, same 5 reads: ${fmtMs(series(raws))}`,
          ratio: ratio(firsts, raws),
          target: "< 1000 ms",
          data: { grove: series(firsts), raw: series(raws), ratio: median(firsts) / median(raws) },
        });
      } finally {
        await browser.close();
      }

      // Live agents: launched in batches of 10 (what a busy machine does), each kept live after
      // its first turn; RSS and /health measured with none and with all of them.
      const post = async (path: string, body: unknown) => {
        const r = await fetch(`${api}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
        return (await r.json()) as { id?: string };
      };
      const rss0 = await settledRss(pid, inspector);
      const health0 = await healthTimes(api, 500);
      await launchLiveAgents(post, repositoryId, 0, agents);
      const rssN = await settledRss(pid, inspector);
      const healthN = await healthTimes(api, 500);
      const perAgent = (rssN - rss0) / agents / 1024;
      rows.push({
        benchmark: `mass: server RSS with 0 / ${agents} live scripted agents (${taskLabel} tasks; median of 5 samples after a full GC)`,
        grove: `${(rss0 / 1024).toFixed(0)} MiB / ${(rssN / 1024).toFixed(0)} MiB`,
        raw: "-",
        ratio: `${perAgent.toFixed(3)} MiB per agent`,
        target: "< 0.2 MiB per agent",
        data: { rssKiB: [rss0, rssN], perAgentMiB: perAgent },
      });
      rows.push({
        benchmark: `mass: GET /health with ${agents} live agents (500 requests)`,
        grove: `p99 ${p99(healthN).toFixed(1)} ms, median ${median(healthN).toFixed(1)} ms`,
        raw: `no agents: p99 ${p99(health0).toFixed(1)} ms, median ${median(health0).toFixed(1)} ms`,
        ratio: `${(p99(healthN) / Math.max(p99(health0), 0.1)).toFixed(2)}× at p99`,
        target: "p99 < 50 ms",
        data: { p99: p99(healthN), p99NoAgents: p99(health0) },
      });
    } finally {
      process.kill(-pid, "SIGTERM");
      await new Promise((r) => child.once("exit", r));
    }
  } finally {
    rmSync(home, { recursive: true, force: true });
    rmSync(repo, { recursive: true, force: true });
  }
  return rows;
}
