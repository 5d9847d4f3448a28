import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { gzipSync } from "node:zlib";
import { chromium, type Page } from "playwright-core";
import { startServer } from "../src/app.js";
import type { TaskRecord } from "../src/domain/records.js";
import { fmtMs, ratio, series } from "./stats.js";
import { median, type Row } from "./util.js";

/**
 * The web page, measured in Chromium and printed, not asserted:
 * - initial JS: gzipped size of the scripts index.html loads before any lazy chunk;
 * - the board's first screen with 10,000 tasks (the task list is served synthetic through
 *   Playwright routing, so the row measures the page, not the API's listing);
 * - scrolling a session of 5,000 messages: frame times while the list scrolls top to bottom.
 */
const DIST = resolve(import.meta.dirname, "../../web/dist");
const CHROMIUM = process.env.GROVE_CHROMIUM ?? "/usr/bin/chromium";

function initialJsGzip(): number {
  const html = readFileSync(join(DIST, "index.html"), "utf8");
  const srcs = [...html.matchAll(/<script[^>]+src="([^"]+)"|<link[^>]+rel="modulepreload"[^>]+href="([^"]+)"/g)].map((m) => m[1] ?? m[2]!);
  return srcs.reduce((n, src) => n + gzipSync(readFileSync(join(DIST, src))).length, 0);
}

const now = "2026-11-30T12:00:00.000Z";
const task = (i: number) => ({
  id: `task_${i}`,
  title: `Task number ${i} of the bench`,
  description: "",
  state: ["todo", "in_progress", "review", "done", "failed"][i % 5],
  archivedAt: null,
  createdAt: now,
  updatedAt: new Date(Date.parse(now) - i * 1000).toISOString(),
  repositories: [{ repositoryId: "repo_1", baseBranch: "main", position: 0 }],
});
const message = (i: number) => ({
  id: `msg_${String(i).padStart(5, "0")}`,
  sessionId: "ses_1",
  role: i % 3 === 0 ? "user" : "agent",
  text: i % 3 === 0 ? `prompt ${i}` : `Answer ${i}: **some** text with \`code\` and a [link](https://example.invalid)\n\n- one\n- two`,
  data: null,
  createdAt: new Date(Date.parse(now) + i * 1000).toISOString(),
});

/** The reference board: plain DOM, the same five column reads the page makes. */
export const RAW_BOARD = `<!doctype html><meta charset="utf-8"><title>raw</title><div id="b"></div><script>
const states = ["todo", "in_progress", "review", "done", "failed"];
Promise.all(states.map((s) => fetch("/api/v1/tasks?view=summary&order=newest&limit=50&archived=false&state=" + s).then((r) => r.json()))).then((pages) => {
  document.getElementById("b").innerHTML = pages.map((p, i) => '<section data-state="' + states[i] + '">' + p.items.map((t) => '<article class="task-card">' + t.title + "</article>").join("") + "</section>").join("");
});
</script>`;

async function json(page: Page, pattern: string, body: unknown): Promise<void> {
  await page.route(pattern, (r) => r.fulfill({ status: 200, contentType: "application/json", body: JSON.stringify(body) }));
}

export async function webBench(rounds = 5): Promise<Row[]> {
  const rows: Row[] = [];
  const gz = initialJsGzip();
  const load = (await import("node:os")).loadavg()[0]!.toFixed(1);
  rows.push({ benchmark: "web: initial JS (gzipped)", grove: `${(gz / 1024).toFixed(0)} KB`, raw: "-", ratio: "-", target: "< 250 KB" });
  const home = mkdtempSync(join(tmpdir(), "grove-bench-web-"));
  const server = await startServer({
    env: { ...process.env, GROVE_HOME: home, GROVE_PORT: "0", GROVE_LOG_LEVEL: "warn", GROVE_DATABASE_URL: "" },
    quiet: true,
  });
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking", "--no-first-run"],
  });
  try {
    // 10,000 real task rows (inserted through the store: creating them over HTTP checks git
    // 10,000 times, which is not what this row measures); the page reads them from the API.
    const store = server.deps.store;
    for (let i = 0; i < 10_000; i++) {
      const t = task(i);
      const rec: TaskRecord = {
        id: t.id,
        title: t.title,
        description: "",
        state: t.state as TaskRecord["state"],
        dirName: `bench-${i}`,
        archivedAt: null,
        createdAt: t.createdAt,
        updatedAt: t.updatedAt,
        repositories: [],
      };
      await store.insertTask(rec);
    }
    // The board's first screen against a reference in the same run: a hand-written page (no
    // framework) reading the same five column pages and writing their titles — the floor of any
    // board on this machine now. Alternated A B A B over `rounds`, median and spread of each.
    const firsts: { at: number; script: number; lists: number }[] = [];
    const raws: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
      await page.goto(server.url + "/");
      await page.locator(".column[data-state=failed] .task-card").first().waitFor();
      // Where the time went: the script loaded and ran (DOMContentLoaded), the column pages answered.
      firsts.push(
        await page.evaluate(() => {
          const nav = performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming;
          const lists = performance.getEntriesByType("resource").filter((r) => r.name.includes("/api/v1/tasks?")) as PerformanceResourceTiming[];
          return { at: performance.now(), script: nav.domContentLoadedEventEnd, lists: Math.max(0, ...lists.map((r) => r.responseEnd)) };
        }),
      );
      await page.close();
      const rawPage = await browser.newPage({ viewport: { width: 1400, height: 900 } });
      await rawPage.route("**/bench-raw-board", (r) => r.fulfill({ status: 200, contentType: "text/html", body: RAW_BOARD }));
      await rawPage.goto(server.url + "/bench-raw-board");
      await rawPage.locator("section[data-state=failed] .task-card").first().waitFor();
      raws.push(await rawPage.evaluate(() => performance.now()));
      await rawPage.close();
    }
    const at = firsts.map((f) => f.at);
    const mid = series(firsts.map((f) => f.script));
    const lists = series(firsts.map((f) => f.lists));
    rows.push({
      benchmark: `web: board, 10,000 tasks, first screen (load avg ${load}) [${rounds} rounds]`,
      grove: `${fmtMs(series(at))} (script ran ${mid.median.toFixed(0)} ms, column pages in ${lists.median.toFixed(0)} ms)`,
      raw: `plain page, same 5 reads: ${fmtMs(series(raws))}`,
      ratio: ratio(at, raws),
      target: "< 1000 ms",
      data: { grove: series(at), raw: series(raws), ratio: median(at) / median(raws) },
    });

    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const t = { ...task(1), id: "task_1" };
    await json(page, "**/api/v1/tasks/task_1", t);
    await json(page, "**/api/v1/tasks/task_1/sessions", [
      {
        id: "ses_1",
        taskId: "task_1",
        agent: "scripted",
        state: "waiting_for_input",
        taskEnvironmentId: null,
        lastError: null,
        createdAt: now,
        updatedAt: now,
      },
    ]);
    await json(
      page,
      "**/api/v1/sessions/ses_1/messages",
      Array.from({ length: Number(process.env.GROVE_BENCH_MESSAGES ?? 5000) }, (_, i) => message(i)),
    );
    await json(page, "**/api/v1/tasks/task_1/changes", { taskId: "task_1", repositories: [] });
    await json(page, "**/api/v1/cleanup-jobs?taskId=task_1", []);
    await json(page, "**/api/v1/tasks/task_1/environment", {
      id: "env_1",
      taskId: "task_1",
      status: "ready",
      workspacePath: "/x",
      runnerId: "r",
      repositories: [],
    });
    page.on("crash", () => process.stderr.write("page crashed\n"));
    page.on("pageerror", (e) => process.stderr.write(`page error: ${String(e)}\n`));
    page.on("console", (m) => m.type() === "error" && process.stderr.write(`console: ${m.text()}\n`));
    // Opening the session page: median and spread over `rounds` loads (the last one is scrolled).
    const opens: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const t0 = performance.now();
      await page.goto(server.url + "/tasks/task_1");
      await page.locator(".messages.virtual .msg").first().waitFor();
      opens.push(performance.now() - t0);
    }
    const frames = await page.evaluate(async () => {
      // Runs in the page (the bench's tsconfig has no DOM library).
      const w = globalThis as any;
      const el = w.document.querySelector(".messages.virtual");
      el.scrollTop = 0;
      const times: number[] = [];
      let last = performance.now();
      for (let y = 0; y < el.scrollHeight; y += 400) {
        el.scrollTop = y;
        await new Promise((r) => w.requestAnimationFrame(r));
        const t = performance.now();
        times.push(t - last);
        last = t;
      }
      times.sort((a, b) => a - b);
      // Reference: frames of the same page while nothing scrolls (what the machine's load alone costs).
      const idle: number[] = [];
      last = performance.now();
      for (let i = 0; i < 200; i++) {
        await new Promise((r) => w.requestAnimationFrame(r));
        const t = performance.now();
        idle.push(t - last);
        last = t;
      }
      idle.sort((a, b) => a - b);
      return {
        n: times.length,
        p95: times[Math.floor(times.length * 0.95)] ?? 0,
        max: times[times.length - 1] ?? 0,
        rendered: w.document.querySelectorAll(".messages.virtual .msg").length,
        idleP95: idle[Math.floor(idle.length * 0.95)] ?? 0,
      };
    });
    rows.push({
      benchmark: `web: session, 5,000 messages, open [${rounds} rounds]`,
      grove: fmtMs(series(opens)),
      raw: "-",
      ratio: "-",
      target: "-",
      data: { grove: series(opens) },
    });
    rows.push({
      benchmark: `web: 5,000-message scroll (${frames.n} steps)`,
      grove: `p95 ${frames.p95.toFixed(1)} ms/frame, max ${frames.max.toFixed(0)} ms, ${frames.rendered} rows in DOM`,
      raw: `idle p95 ${frames.idleP95.toFixed(1)} ms/frame`,
      ratio: (frames.p95 / Math.max(frames.idleP95, 1)).toFixed(2),
      target: "p95 < 50 ms",
    });
  } finally {
    await browser.close();
    await server.close();
    rmSync(home, { recursive: true, force: true });
  }
  return rows;
}
