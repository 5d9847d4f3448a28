import { execFileSync } from "node:child_process";
import { request as httpRequest } from "node:http";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export function gitIn(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd, encoding: "utf8", maxBuffer: 512 * 1024 * 1024, env: { ...process.env, LC_ALL: "C" } });
}

/** A generated repository with `files` files in nested directories, one commit on `main`. */
export function generatedRepo(files: number, prefix = "grove-bench-"): string {
  const dir = mkdtempSync(join(process.env.GROVE_BENCH_TMP ?? tmpdir(), prefix));
  gitIn(dir, "init", "-q", "-b", "main");
  gitIn(dir, "config", "user.name", "bench");
  gitIn(dir, "config", "user.email", "bench@example.invalid");
  for (let i = 0; i < files; i++) {
    const sub = join(dir, `d${Math.floor(i / 500)}`, `e${Math.floor(i / 50) % 10}`);
    if (i % 50 === 0) mkdirSync(sub, { recursive: true });
    writeFileSync(join(sub, `f${i}.txt`), `file ${i}\n${"x".repeat(i % 200)}\n`);
  }
  gitIn(dir, "add", "-A");
  gitIn(dir, "commit", "-q", "-m", "generated");
  return dir;
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] ?? 0) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2;
}

export interface Row {
  benchmark: string;
  grove: string;
  raw: string;
  ratio: string;
  target: string;
  /** Machine-readable figures for `--json` (medians, spreads, ratio); the table prints the strings. */
  data?: Record<string, unknown>;
}

type Col = "benchmark" | "grove" | "raw" | "ratio" | "target";

export function printTable(rows: Row[]): void {
  const cols: Col[] = ["benchmark", "grove", "raw", "ratio", "target"];
  const width = Object.fromEntries(cols.map((c) => [c, Math.max(c.length, ...rows.map((r) => r[c].length))])) as Record<Col, number>;
  const line = (r: Record<Col, string>) => "| " + cols.map((c) => r[c].padEnd(width[c])).join(" | ") + " |";
  process.stdout.write(line({ benchmark: "benchmark", grove: "grove", raw: "raw", ratio: "ratio", target: "target" }) + "\n");
  process.stdout.write("|" + cols.map((c) => "-".repeat(width[c] + 2)).join("|") + "|\n");
  for (const r of rows) process.stdout.write(line(r) + "\n");
}

export const ms = (x: number) => `${x.toFixed(0)} ms`;

/**
 * One JSON request on a connection of its own (no keep-alive): the raw side of a bench blocks
 * the event loop (execFileSync) for longer than the server's keep-alive timeout, and a pooled
 * connection the server closed meanwhile would fail the next request with ECONNRESET.
 */
export function requestJson(method: string, url: string, body?: unknown): Promise<any> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { method, agent: false, headers: method === "GET" ? {} : { "content-type": "application/json", "content-length": Buffer.byteLength(payload ?? "") } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          try {
            resolve(text ? JSON.parse(text) : {});
          } catch (e) {
            reject(e instanceof Error ? e : new Error(String(e)));
          }
        });
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}
