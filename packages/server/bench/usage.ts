import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { EventBus } from "../src/domain/event-bus.js";
import type { SessionRecord } from "../src/domain/records.js";
import type { Deps } from "../src/orchestrator/context.js";
import { UsageService } from "../src/orchestrator/usage/usage-service.js";
import { openStore } from "../src/store/open.js";
import { series } from "./stats.js";
import type { Row } from "./util.js";

const UPDATES = 10_000;
// Repeats after the measured round: RSS settles within the first (SQLite page cache, JIT), then stays.
const ROUNDS = 5;

function rssKiB(): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync("/proc/self/status", "utf8"));
  return Number(m?.[1] ?? NaN);
}

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/** RSS after two full collections and a moment of quiet. */
async function settledRss(): Promise<number> {
  gc();
  await new Promise((r) => setTimeout(r, 200));
  gc();
  heaps.push(process.memoryUsage().heapUsed / 1024);
  return rssKiB();
}

/** The JS heap (KiB) at each settled sample: RSS also moves with SQLite's page cache and the allocator; the heap shows what Grove keeps. */
const heaps: number[] = [];

/**
 * USE-1: what recording a usage update costs. 10,000 `usage_update`s of one session go through
 * the real path (the session's usage recorder, the store's transaction on SQLite, the budget
 * check against a task budget and a daily cap), each awaited before the next — the uncoalesced
 * worst case. The raw reference is one plain single-row UPDATE through the same store. Then three
 * more rounds of 10,000: RSS after each (settled, after a full GC) must not grow.
 */
export async function usageBench(): Promise<Row[]> {
  const home = mkdtempSync(join(process.env.GROVE_BENCH_TMP ?? tmpdir(), "grove-bench-usage-"));
  const store = await openStore({ home, databaseUrl: undefined });
  try {
    const now = () => new Date().toISOString();
    const at = now();
    await store.insertTask({
      id: "tsk_bench",
      title: "bench",
      description: "",
      state: "in_progress",
      dirName: "bench",
      archivedAt: null,
      createdAt: at,
      updatedAt: at,
      repositories: [],
    });
    const session: SessionRecord = {
      id: "ses_bench",
      taskId: "tsk_bench",
      agent: "scripted",
      state: "running",
      taskEnvironmentId: null,
      acpSessionId: null,
      lastError: null,
      createdAt: at,
      updatedAt: at,
      sandbox: "unconfined",
    };
    await store.insertSession(session);
    await store.usage.setBudget("tsk_bench", { cost: 1e12 }, at);
    const deps = {
      store,
      bus: new EventBus(),
      log: { info() {}, warn() {}, error() {} },
      now,
      runnerId: "runner_bench",
      agents: { sessionIds: () => [], get: () => undefined },
      usage: { dailyCap: { cost: 1e12 }, prices: {} },
    } as unknown as Deps;
    const service = new UsageService(deps);
    const recorder = service.recorderFor(session);
    let cost = 0;
    const round = async (n: number, times?: number[]) => {
      for (let i = 0; i < n; i++) {
        cost += 0.0001;
        const t0 = performance.now();
        recorder.update({ used: 1000 + i, size: 200_000, cost: { amount: cost, currency: "USD" } });
        await recorder.flush();
        times?.push(performance.now() - t0);
      }
    };
    const times: number[] = [];
    await round(UPDATES, times);
    const raw: number[] = [];
    for (let i = 0; i < 2000; i++) {
      const t0 = performance.now();
      await store.setSessionSandbox("ses_bench", "unconfined");
      raw.push(performance.now() - t0);
    }
    const rss: number[] = [await settledRss()];
    for (let r = 0; r < ROUNDS; r++) {
      await round(UPDATES);
      rss.push(await settledRss());
    }
    const g = series(times);
    const w = series(raw);
    const growth = rss[rss.length - 1]! - rss[1]!;
    const heapGrowth = heaps[heaps.length - 1]! - heaps[1]!;
    return [
      {
        benchmark: `record a usage update (SQLite, ${UPDATES} updates, each written)`,
        grove: `${g.median.toFixed(3)} ms (p99 ${[...times].sort((a, b) => a - b)[Math.floor(times.length * 0.99)]!.toFixed(3)})`,
        raw: `one UPDATE ${w.median.toFixed(3)} ms`,
        ratio: `${(g.median / w.median).toFixed(1)}×`,
        target: "< 1 ms median",
        data: { grove: g, raw: w },
      },
      {
        benchmark: `RSS over ${ROUNDS} × ${UPDATES} more usage updates`,
        grove: `${rss.map((k) => (k / 1024).toFixed(1)).join(" → ")} MiB`,
        raw: `JS heap ${(heaps[1]! / 1024).toFixed(1)} → ${(heaps[heaps.length - 1]! / 1024).toFixed(1)} MiB`,
        ratio: `RSS ${growth >= 0 ? "+" : ""}${(growth / 1024).toFixed(1)} MiB, heap ${heapGrowth >= 0 ? "+" : ""}${(heapGrowth / 1024).toFixed(2)} MiB after warm-up`,
        target: "no growth on repeat",
        data: { rssKiB: rss, growthKiB: growth, heapKiB: heaps, heapGrowthKiB: heapGrowth },
      },
    ];
  } finally {
    await store.close();
    rmSync(home, { recursive: true, force: true });
  }
}
