import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import pg from "pg";
import { apiClient, serveArgs } from "../fixture/server.js";
import type { Cleanups } from "./helpers.js";

/** A `grove serve` in its own mount namespace, where the other runners' homes are hidden. */
export interface IsolatedRunner {
  id: string;
  home: string;
  url: string;
  api: ReturnType<typeof apiClient>;
  /** The process serving (node), for kill -9 and /proc checks. */
  pid: number;
  child: ChildProcess;
  output(): string;
  exited: Promise<unknown>;
  /** strace file-syscall log of the runner and its children, when traced. */
  trace?: string | undefined;
}

function quote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Whether `unshare --mount` and a tmpfs mount work here (the acceptance tests need both). */
export function canUnshare(): boolean {
  return spawnSync("unshare", ["--mount", "--propagation", "private", "sh", "-c", "mount -t tmpfs none /mnt"], { stdio: "ignore" }).status === 0;
}

/**
 * Starts a runner inside `unshare --mount` with a tmpfs over each of `hide` (the other runners'
 * GROVE_HOMEs): in its namespace their files do not exist. With `trace`, the server (and every
 * process it starts) runs under `strace -f -e trace=%file`, so a test can prove it never named
 * a path under a hidden home.
 */
export async function isolatedRunner(
  cleanups: Cleanups,
  o: { id: string; home: string; hide: string[]; databaseUrl: string; env?: Record<string, string>; trace?: string },
): Promise<IsolatedRunner> {
  const mounts = o.hide.map((h) => `mount -t tmpfs -o size=1m,mode=0555 grove-hidden ${quote(h)}`).join(" && ");
  const serve = `${o.trace ? `strace -f -qq -e trace=%file -o ${quote(o.trace)} ` : ""}${[process.execPath, ...serveArgs()].map(quote).join(" ")}`;
  const script = `${mounts ? `${mounts} && ` : ""}exec ${serve}`;
  const child = spawn("unshare", ["--mount", "--propagation", "private", "sh", "-c", script], {
    env: {
      ...process.env,
      GROVE_PORT: "0",
      GROVE_HOST: "127.0.0.1",
      GROVE_LOG_LEVEL: "info",
      GROVE_HOME: o.home,
      GROVE_DATABASE_URL: o.databaseUrl,
      GROVE_RUNNER_ID: o.id,
      ...o.env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout?.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (out += d.toString()));
  const exited = new Promise((res) => child.on("exit", res));
  const url = await new Promise<string>((res, rej) => {
    const timer = setTimeout(() => rej(new Error(`runner ${o.id} did not start:\n${out}`)), 120_000);
    child.stdout?.on("data", () => {
      const m = /listening on (http:\/\/[^\s]+)/.exec(out);
      if (m?.[1]) {
        clearTimeout(timer);
        res(m[1]);
      }
    });
    void exited.then(() => {
      clearTimeout(timer);
      rej(new Error(`runner ${o.id} exited before listening:\n${out}`));
    });
  });
  const pid = o.trace ? tracedChild(child.pid!) : child.pid!;
  const r: IsolatedRunner = { id: o.id, home: o.home, url, api: apiClient(url), pid, child, output: () => out, exited, trace: o.trace };
  cleanups.push(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    // Gracefully first: a stopping runner stops its agents.
    const signal = (sig: NodeJS.Signals) => {
      try {
        process.kill(pid, sig);
      } catch {
        // gone
      }
    };
    signal("SIGTERM");
    const timer = setTimeout(() => {
      signal("SIGKILL");
      child.kill("SIGKILL");
    }, 8_000);
    await exited;
    clearTimeout(timer);
  });
  return r;
}

/** The node process strace started (strace's only direct child). */
function tracedChild(stracePid: number): number {
  const kids = readFileSync(`/proc/${stracePid}/task/${stracePid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
  if (kids.length !== 1) throw new Error(`strace ${stracePid} has children ${kids.join(",")}`);
  return kids[0]!;
}

/** Stops a runner gracefully (SIGTERM to the server) and waits for it, so its trace is complete. */
export async function stopRunner(r: IsolatedRunner): Promise<void> {
  try {
    process.kill(r.pid, "SIGTERM");
  } catch {
    return;
  }
  await r.exited;
}

/** One query on the shared database (the test reads rows no API shows: agent pids). */
export async function sql<T>(databaseUrl: string, text: string, params: unknown[] = []): Promise<T[]> {
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  try {
    return (await c.query(text, params)).rows as T[];
  } finally {
    await c.end();
  }
}

/** Lines of a strace log that name a path under `dir` (any file syscall, successful or not). */
export function traceLinesUnder(trace: string, dir: string): string[] {
  return readFileSync(trace, "utf8")
    .split("\n")
    .filter((l) => l.includes(`"${dir}/`) || l.includes(`"${dir}"`));
}
