import { createHash } from "node:crypto";
import { closeSync, openSync, readFileSync, realpathSync, unlinkSync, writeFileSync } from "node:fs";
import { createConnection, createServer, type Server } from "node:net";
import { join } from "node:path";

/** LIVE-1: a second server on a home (or a runner id) that a live server holds. */
export class AlreadyRunningError extends Error {
  readonly code = "grove_already_running";
}

/** The held lock: tells a second start who holds it; released when the server closes or dies. */
export interface HomeLock {
  /** The URL the server listens on, once it does (a second start names it). */
  setUrl(url: string): void;
  release(): Promise<void>;
}

interface Holder {
  pid: number;
  url: string | null;
}

function refusal(h: Holder): AlreadyRunningError {
  return new AlreadyRunningError(`pid ${h.pid} serves this home at ${h.url ?? "(an address it has not opened yet: it is still starting)"}`);
}

/**
 * LIVE-1: one server per `GROVE_HOME`, taken before anything else of the home is read or written
 * (migrations, recovery, the runner id). On Linux the lock is an abstract Unix socket named after
 * the home's real path: binding it is exclusive, and the kernel releases it the moment the holder
 * exits however it dies (kill -9 included), so there is no stale lock to judge. The holder answers
 * a second start with its pid and URL. Elsewhere: an exclusively created `server.lock` file with
 * the holder's pid, taken over only when that pid is gone.
 */
export async function lockHome(home: string): Promise<HomeLock> {
  const real = realpathSync(home);
  return process.platform === "linux" ? socketLock(real) : fileLock(real);
}

async function socketLock(home: string): Promise<HomeLock> {
  const name = `\0grove-home-${createHash("sha256").update(home).digest("hex").slice(0, 40)}`;
  const holder: Holder = { pid: process.pid, url: null };
  const server: Server = createServer((socket) => {
    socket.on("error", () => undefined);
    socket.end(`${JSON.stringify(holder)}\n`);
  });
  server.on("error", () => undefined);
  const bind = () =>
    new Promise<boolean>((resolve, reject) => {
      const onError = (e: NodeJS.ErrnoException) => (e.code === "EADDRINUSE" ? resolve(false) : reject(e));
      server.once("error", onError);
      server.listen({ path: name }, () => {
        server.off("error", onError);
        resolve(true);
      });
    });
  for (let attempt = 0; !(await bind()); attempt++) {
    const h = await askHolder(name);
    // A holder that answered is alive; one that vanished between the two steps freed the name.
    if (h.pid > 0 || attempt >= 2) throw refusal(h);
  }
  // The lock never keeps the process alive by itself.
  server.unref();
  return {
    setUrl: (url) => {
      holder.url = url;
    },
    release: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Who holds the socket: its answer, or (it died meanwhile, or does not answer) what is known. */
function askHolder(name: string): Promise<Holder> {
  return new Promise((resolve) => {
    let text = "";
    const socket = createConnection({ path: name });
    const timer = setTimeout(() => socket.destroy(), 5000);
    socket.on("data", (d: Buffer) => (text += d.toString("utf8")));
    socket.on("error", () => undefined);
    socket.on("close", () => {
      clearTimeout(timer);
      try {
        const h = JSON.parse(text.trim()) as Partial<Holder>;
        resolve({ pid: typeof h.pid === "number" ? h.pid : 0, url: typeof h.url === "string" ? h.url : null });
      } catch {
        resolve({ pid: 0, url: null });
      }
    });
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

async function fileLock(home: string): Promise<HomeLock> {
  const path = join(home, "server.lock");
  const write = (h: Holder) => writeFileSync(path, `${JSON.stringify(h)}\n`, { mode: 0o600 });
  const holder: Holder = { pid: process.pid, url: null };
  for (let attempt = 0; ; attempt++) {
    try {
      closeSync(openSync(path, "wx", 0o600));
      write(holder);
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST" || attempt > 0) throw e;
      let found: Holder = { pid: 0, url: null };
      try {
        found = JSON.parse(readFileSync(path, "utf8")) as Holder;
      } catch {
        // half-written by a starting server: judged by its pid below (0 = unknown, taken over)
      }
      if (found.pid > 0 && found.pid !== process.pid && alive(found.pid)) throw refusal(found);
      unlinkSync(path);
    }
  }
  return {
    setUrl: (url) => {
      holder.url = url;
      write(holder);
    },
    release: async () => {
      try {
        if ((JSON.parse(readFileSync(path, "utf8")) as Holder).pid === process.pid) unlinkSync(path);
      } catch {
        // already gone
      }
    },
  };
}
