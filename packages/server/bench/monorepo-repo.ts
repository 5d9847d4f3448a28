import { spawn } from "node:child_process";
import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { gitIn } from "./util.js";

/** Where generated benchmark inputs are kept between runs (`GROVE_BENCH_CACHE`, default `~/.cache/grove-bench`). */
export function benchCache(): string {
  const dir = process.env.GROVE_BENCH_CACHE ?? join(homedir(), ".cache", "grove-bench");
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** The monorepo's size: `GROVE_BENCH_MONO_FILES` (default 100,000) files, 20 per directory. */
export function monorepoFiles(): number {
  const n = Number(process.env.GROVE_BENCH_MONO_FILES ?? 100_000);
  // The Changes rows touch 4,500 distinct tracked files spread over the whole tree.
  if (!Number.isInteger(n) || n < 10_000) throw new Error(`GROVE_BENCH_MONO_FILES must be a whole number ≥ 10000, got ${process.env.GROVE_BENCH_MONO_FILES}`);
  return n;
}

/** The path of file `i` in the generated monorepo: 20 files per leaf directory, 50 leaves per package. */
export function monoPath(i: number): string {
  const leaf = Math.floor(i / 20);
  return `pkg${Math.floor(leaf / 50)}/mod${leaf % 50}/f${i}.ts`;
}

const HISTORY_COMMITS = 20;

function content(i: number, rev: number): string {
  const body = `export const v${i} = ${rev};\n`.repeat(8 + (i % 24));
  return `// file ${i} revision ${rev}\n${body}`;
}

/**
 * Streams the monorepo into `git fast-import` (no network, no checkout): a first commit with
 * every file, then HISTORY_COMMITS commits that each rewrite a twentieth of the files, so the
 * history holds real deltas and the base has a long first-parent chain.
 */
async function fastImport(bare: string, files: number): Promise<void> {
  const child = spawn("git", ["fast-import", "--quiet", "--done"], { cwd: bare, stdio: ["pipe", "ignore", "inherit"], env: { ...process.env, LC_ALL: "C" } });
  const exited = new Promise<number>((res) => child.on("close", (c) => res(c ?? 1)));
  const stdin = child.stdin;
  let buf = "";
  const flush = async (force = false) => {
    if (!force && buf.length < 1 << 20) return;
    const chunk = buf;
    buf = "";
    if (!stdin.write(chunk)) await new Promise((r) => stdin.once("drain", r));
  };
  const data = (text: string) => `data ${Buffer.byteLength(text)}\n${text}\n`;
  for (let c = 0; c <= HISTORY_COMMITS; c++) {
    const msg = c === 0 ? "generated monorepo" : `history ${c}`;
    buf += `commit refs/heads/main\ncommitter bench <bench@example.invalid> ${1_700_000_000 + c * 3600} +0000\n${data(msg)}`;
    for (let i = 0; i < files; i++) {
      if (c > 0 && i % HISTORY_COMMITS !== c - 1) continue;
      buf += `M 100644 inline ${monoPath(i)}\n${data(content(i, c))}`;
      await flush();
    }
    buf += "\n";
  }
  buf += "done\n";
  await flush(true);
  stdin.end();
  if ((await exited) !== 0) throw new Error("git fast-import failed");
}

/**
 * The generated monorepo as a bare repository in the bench cache, built once per size (a
 * partial build is never taken for a finished one: it is renamed into place when complete).
 */
export async function cachedMonorepo(files = monorepoFiles()): Promise<string> {
  const bare = join(benchCache(), `monorepo-${files}-v1.git`);
  if (existsSync(bare)) return bare;
  const building = `${bare}.building-${process.pid}`;
  rmSync(building, { recursive: true, force: true });
  mkdirSync(building, { recursive: true });
  gitIn(building, "init", "-q", "--bare", "-b", "main");
  await fastImport(building, files);
  renameSync(building, bare);
  return bare;
}

/** A working clone of the cached monorepo at `dir` (objects shared with the cache, main checked out). */
export function monorepoClone(bare: string, dir: string): string {
  gitIn(join(dir, ".."), "clone", "-q", "--shared", "--", bare, dir);
  gitIn(dir, "config", "user.name", "bench");
  gitIn(dir, "config", "user.email", "bench@example.invalid");
  return dir;
}
