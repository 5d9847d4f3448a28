import { execFileSync } from "node:child_process";
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
