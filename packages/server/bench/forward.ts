import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { startServer, type RunningServer } from "../src/app.js";
import { generatedRepo, median, type Row } from "./util.js";
import { series } from "./stats.js";

const PG = process.env.GROVE_TEST_PG_URL ?? "postgres://postgres@127.0.0.1:5432";

async function admin(sql: string): Promise<void> {
  const u = new URL(PG);
  u.pathname = "/postgres";
  const c = new pg.Client({ connectionString: u.toString() });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

function client(base: string) {
  return async (method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> => {
    const r = await fetch(`${base}/api/v1${path}`, {
      method,
      headers: method === "GET" ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: r.status, body: await r.json().catch(() => undefined) };
  };
}

/**
 * What forwarding adds to a prompt. Two runners on one PostgreSQL; the task lives on
 * C. `POST /sessions/{id}/prompt` sent to C directly (raw) and through A (forwarded over HTTP
 * with the cluster secret), alternated A B A B; each turn finishes before the next prompt.
 * Target: the forwarded median adds under 10 ms.
 */
export async function forwardBench(rounds: number): Promise<Row[]> {
  const n = Math.max(rounds * 12, 60);
  const db = `grove_bench_${randomBytes(5).toString("hex")}`;
  await admin(`CREATE DATABASE ${db}`);
  const u = new URL(PG);
  u.pathname = `/${db}`;
  const secret = randomBytes(24).toString("hex");
  const homes = [mkdtempSync(join(tmpdir(), "grove-bench-fwd-")), mkdtempSync(join(tmpdir(), "grove-bench-fwd-"))];
  const servers: RunningServer[] = [];
  const repo = generatedRepo(100);
  try {
    for (const [i, id] of ["runner_a", "runner_c"].entries()) {
      servers.push(
        await startServer({
          env: {
            ...process.env,
            GROVE_HOME: homes[i],
            GROVE_PORT: "0",
            GROVE_HOST: "127.0.0.1",
            GROVE_LOG_LEVEL: "warn",
            GROVE_DATABASE_URL: u.toString(),
            GROVE_RUNNER_ID: id,
            GROVE_CLUSTER_SECRET: secret,
            GROVE_RUNNER_HEARTBEAT_MS: "1000",
          },
          quiet: true,
        }),
      );
    }
    const [a, c] = [client(servers[0]!.url), client(servers[1]!.url)];
    const reg = await c("POST", "/repositories", { path: repo });
    const task = await c("POST", "/tasks", { title: "bench forward", repositories: [{ repositoryId: reg.body.id }] });
    const session = await a("POST", `/tasks/${task.body.id}/sessions`, {});
    if (session.status !== 201) throw new Error(`session: ${session.status} ${JSON.stringify(session.body)}`);
    const idle = async () => {
      for (;;) {
        if ((await c("GET", `/sessions/${session.body.id}`)).body.state === "waiting_for_input") return;
        await new Promise((r) => setTimeout(r, 5));
      }
    };
    const prompt = async (via: typeof a): Promise<number> => {
      await idle();
      const t0 = performance.now();
      const r = await via("POST", `/sessions/${session.body.id}/prompt`, { prompt: "say hi" });
      const elapsed = performance.now() - t0;
      if (r.status !== 202) throw new Error(`prompt: ${r.status} ${JSON.stringify(r.body)}`);
      return elapsed;
    };
    // Warm both paths (connections, JIT) before measuring.
    for (let i = 0; i < 5; i++) {
      await prompt(c);
      await prompt(a);
    }
    const direct: number[] = [];
    const forwarded: number[] = [];
    for (let i = 0; i < n; i++) {
      direct.push(await prompt(c));
      forwarded.push(await prompt(a));
    }
    await idle();
    const added = median(forwarded) - median(direct);
    // Rounds pair up (direct, forwarded, one after the other): the median of the differences is steadier under load.
    const diffs = forwarded.map((f, i) => f - direct[i]!);
    const paired = median(diffs);
    const signed = (x: number) => `${x >= 0 ? "+" : "−"}${Math.abs(x).toFixed(1)} ms`;
    const spread = (xs: number[]) => `${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)}`;
    // The middle half of the paired differences: single rounds swing with the machine's load.
    const sorted = [...diffs].sort((x, y) => x - y);
    const q = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
    return [
      {
        benchmark: `prompt forwarded A→C [${n} rounds]`,
        grove: `${median(forwarded).toFixed(1)} ms (${spread(forwarded)})`,
        raw: `direct to C: ${median(direct).toFixed(1)} ms (${spread(direct)})`,
        ratio: `${signed(added)} (paired ${signed(paired)}, middle half ${signed(q(0.25))}…${signed(q(0.75))})`,
        target: "< +10 ms median",
        data: { grove: series(forwarded), raw: series(direct), addedMs: added, pairedMs: paired, pairedQ1Ms: q(0.25), pairedQ3Ms: q(0.75) },
      },
    ];
  } finally {
    for (const s of servers.reverse()) await s.close().catch(() => undefined);
    await admin(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`).catch(() => undefined);
    for (const h of homes) rmSync(h, { recursive: true, force: true });
    rmSync(repo, { recursive: true, force: true });
  }
}
