import { spawn } from "node:child_process";
import { realpath } from "node:fs/promises";
import { resolve, sep } from "node:path";
import type { Writable } from "node:stream";
import { childEnv } from "../domain/child-env.js";
import { ScopedValue } from "../domain/scoped-value.js";
import { AppError } from "../domain/errors.js";
import { Semaphore } from "./semaphore.js";
import type { GitResult, GitRunOptions } from "./run-options.js";
import type { GitCwd } from "./worktree-link.js";
import { spawnWithoutFork, type StartedChild } from "./fast-spawn.js";
import { fifoHolding } from "./fifo-watch.js";

// Which configuration files git reads: the person's own setup, paths only. Inherited
// GIT_CONFIG_COUNT/KEY_n/VALUE_n and GIT_CONFIG_PARAMETERS are NOT kept: they can carry secrets
// (an `http.extraHeader`), and Grove passes its own settings as `-c` arguments or `opts.env`.
// Repository-selecting variables (GIT_DIR, GIT_WORK_TREE, GIT_INDEX_FILE, …), which a server
// started from a git hook would inherit, are not on the allow-list either.
const GIT_CONFIG_FILE_ENV: readonly string[] = ["GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_NOSYSTEM", "XDG_CONFIG_HOME"];

// What a fetch/clone/push needs to reach a server from behind a proxy or a private CA.
const NETWORK_ENV: readonly string[] = [
  "http_proxy",
  "https_proxy",
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "all_proxy",
  "ALL_PROXY",
  "no_proxy",
  "NO_PROXY",
  "GIT_SSL_CAINFO",
  "GIT_SSL_CAPATH",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "CURL_CA_BUNDLE",
];

// SBX-4: what every call in a pinned worktree runs with, whatever any config file says.
const PINNED_CONFIG: readonly string[] = ["-c", "core.fsmonitor=false"];
const NO_HOOKS: readonly string[] = ["-c", "core.hooksPath=/dev/null"];

// Global options that take a separate value: skipped when naming the subcommand in errors.
const GLOBAL_WITH_VALUE = new Set(["-c", "-C", "--git-dir", "--work-tree", "--namespace", "--exec-path"]);
const WITH_ACTION = new Set(["worktree", "remote", "stash", "submodule", "sparse-checkout", "notes"]);

/**
 * The subcommand (plus its action for `worktree add` and the like) without any user input, for
 * error messages and details.
 */
export function subcommandOf(args: readonly string[]): string[] {
  let i = 0;
  while (i < args.length) {
    const a = args[i]!;
    if (GLOBAL_WITH_VALUE.has(a)) i += 2;
    else if (a.startsWith("-")) i += 1;
    else break;
  }
  const sub = args[i];
  if (sub === undefined) return [];
  const action = args[i + 1];
  return WITH_ACTION.has(sub) && action !== undefined && /^[a-z-]+$/.test(action) ? [sub, action] : [sub];
}

/** How often a pinned git's wait on a planted FIFO is looked for (SBX-4.7). */
const FIFO_WATCH_MS = 1_000;

function heldByFifo(subText: string, sub: string[], fifo: string, cwd: Exclude<GitCwd, string>): AppError {
  return new AppError("workspace_tampered", `git ${subText} in ${cwd.workTree} was stopped: it waited on ${fifo} planted in its git files`, {
    args: sub,
    path: cwd.workTree,
    action: `delete the FIFO (\`find ${cwd.gitDir} -type p\` lists those in the worktree's git dir; the repository's .git may hold one too)`,
  });
}

function lastLine(text: string): string {
  const lines = text
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l.length > 0);
  return lines[lines.length - 1] ?? "";
}

/**
 * The one choke point for git (WT-6): argv arrays (never a shell), `LC_ALL=C`, a timeout that
 * kills the whole process group, a non-interactive environment, a global cap on concurrent
 * processes, and a per-repository mutation lock keyed by the real path of the common git dir.
 * One instance per server (the composition root owns it); the cap is per instance.
 */
export class GitRunner {
  private readonly semaphore: Semaphore;
  private readonly defaultTimeoutMs: number;
  private readonly lockTails = new Map<string, Promise<void>>();
  private readonly heldLocks = new ScopedValue<ReadonlySet<string>>();
  private readonly commonDirs = new Map<string, string>();
  private spawned = 0;
  /** git processes running now. */
  private running = 0;

  private readonly pinnedRoots: string[];
  private readonly withoutFork: boolean;

  /**
   * `pinnedRoots` (the composition root passes `GROVE_HOME/tasks`): directories where every git
   * call must come pinned (SBX-4). A plain-directory call inside one is refused before any
   * process starts, so a call site that forgot to pin fails loudly instead of trusting `.git`.
   * `withoutFork` (default true): start git through the posix_spawn addon when it was built
   * (git/fast-spawn.ts), else with Node's spawn; false always uses Node's (the tests run both).
   */
  constructor(opts: { maxConcurrent?: number; defaultTimeoutMs?: number; pinnedRoots?: readonly string[]; withoutFork?: boolean } = {}) {
    this.pinnedRoots = (opts.pinnedRoots ?? []).map((r) => resolve(r));
    this.withoutFork = opts.withoutFork ?? true;
    const max = opts.maxConcurrent ?? 8;
    this.semaphore = new Semaphore(Math.max(1, max));
    this.defaultTimeoutMs = opts.defaultTimeoutMs ?? 120_000;
  }

  /** git processes running now (a test waits for one blocked on a planted FIFO). */
  get runningCount(): number {
    return this.running;
  }

  /** Total git processes spawned by this runner (tests and benchmarks count them). */
  get spawnCount(): number {
    return this.spawned;
  }

  /**
   * Runs `git <args>` in `opts.cwd`. A non-zero exit not in `okExitCodes` throws
   * `AppError("git_failed")` naming the subcommand and stderr's last line; a timeout kills the
   * process group and throws `AppError("git_timeout")`.
   */
  async run(args: string[], opts: GitRunOptions): Promise<GitResult> {
    const release = await this.semaphore.acquire();
    let released = false;
    const releaseOnce = (): void => {
      if (!released) {
        released = true;
        release();
      }
    };
    // spawnGit releases the slot once the process is gone (or could not start).
    return this.spawnGit(args, opts, releaseOnce);
  }

  private refuseUnpinned(cwd: string, sub: string): void {
    const at = resolve(cwd);
    if (this.pinnedRoots.some((root) => at === root || at.startsWith(root + sep))) {
      throw new AppError("internal_error", `git ${sub} was asked to run in ${at} without its recorded git dir (SBX-4); nothing ran`, { args: [sub] });
    }
  }

  private environment(opts: GitRunOptions): NodeJS.ProcessEnv {
    // SEC-7: git and every hook it runs get the children's allow-list, plus the variables that
    // only choose git's own configuration files (never secrets); network commands also keep
    // the proxy and CA settings they need to reach a server.
    const env: NodeJS.ProcessEnv = childEnv(process.env, {}, opts.network ? [...GIT_CONFIG_FILE_ENV, ...NETWORK_ENV] : GIT_CONFIG_FILE_ENV);
    if (opts.isolatedConfig) {
      for (const k of Object.keys(env)) if (k.startsWith("GIT_CONFIG")) delete env[k];
      env.GIT_CONFIG_NOSYSTEM = "1";
      env.GIT_CONFIG_GLOBAL = "/dev/null";
    }
    env.LC_ALL = "C";
    env.GIT_TERMINAL_PROMPT = "0";
    // Optional locks are only the opportunistic index refresh of read commands such as `status`;
    // mutations take their mandatory locks regardless. Turning them off everywhere keeps our
    // reads from fighting an agent's own git commands over index.lock in a shared worktree.
    env.GIT_OPTIONAL_LOCKS = "0";
    env.GIT_PAGER = "cat";
    env.GIT_EDITOR = "true";
    if (opts.network) {
      // Nothing may wait for a person: ssh fails instead of asking; an empty GIT_ASKPASS skips
      // askpass programs (core.askPass and SSH_ASKPASS included) and then the disabled terminal prompt fails.
      env.GIT_SSH_COMMAND = `${process.env.GIT_SSH_COMMAND ?? "ssh"} -o BatchMode=yes`;
      env.GIT_ASKPASS = "";
      env.SSH_ASKPASS_REQUIRE = "never";
      env.GCM_INTERACTIVE = "never";
    }
    const merged = { ...env, ...opts.env };
    if (typeof opts.cwd !== "string") {
      // SBX-4: set last, so nothing a caller passes can point git elsewhere.
      merged.GIT_DIR = opts.cwd.gitDir;
      merged.GIT_WORK_TREE = opts.cwd.workTree;
    }
    return merged;
  }

  private spawnGit(givenArgs: string[], opts: GitRunOptions, release: () => void): Promise<GitResult> {
    const timeoutMs = opts.timeoutMs ?? this.defaultTimeoutMs;
    const sub = subcommandOf(givenArgs);
    const subText = sub.join(" ") || "git";
    const pinned = typeof opts.cwd !== "string";
    const cwd = typeof opts.cwd === "string" ? opts.cwd : opts.cwd.workTree;
    // SBX-4: command-line `-c` wins over every config file (a rewritten common-dir config too):
    // no fsmonitor command, and no hooks unless this is the person's own commit/rebase/merge.
    const args = pinned ? [...PINNED_CONFIG, ...(opts.hooks ? [] : NO_HOOKS), ...givenArgs] : givenArgs;
    return new Promise<GitResult>((resolvePromise, reject) => {
      if (!pinned) {
        try {
          this.refuseUnpinned(cwd, subText);
        } catch (e) {
          release();
          reject(e);
          return;
        }
      }
      // detached: git gets its own process group, so a timeout also kills ssh/remote helpers/hooks
      // that would otherwise keep the pipes open.
      let child: StartedChild;
      try {
        const stdio: ("pipe" | "ignore")[] = [opts.input === undefined ? "ignore" : "pipe", "pipe", "pipe"];
        if (opts.fd3 !== undefined) stdio.push("pipe");
        const env = this.environment(opts);
        child =
          (this.withoutFork ? spawnWithoutFork("git", args, { cwd, env, stdio, detached: true }) : null) ??
          spawn("git", args, { cwd, env, stdio, detached: true, windowsHide: true });
      } catch (e) {
        // e.g. a NUL byte in an argument: refused before any process exists.
        release();
        reject(new AppError("git_failed", `git ${subText} could not start: ${(e as Error).message}`, { args: sub, exitCode: null }));
        return;
      }
      this.spawned += 1;
      this.running += 1;
      let counted = true;
      const gone = (): void => {
        if (counted) this.running -= 1;
        counted = false;
      };
      // "error" without a process (it could not start) may come without "close".
      child.once("close", gone);
      child.once("error", gone);
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      let outBytes = 0;
      let truncated = false;
      let settled = false;
      let timedOut = false;

      const killGroup = (): void => {
        try {
          if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
        } catch {
          child.kill("SIGKILL");
        }
      };
      // SBX-4.7: a task worktree's git dirs are the agent's to write; a git held there by a
      // FIFO the agent planted is stopped within a second instead of holding its slot of the
      // concurrency cap until the timeout.
      let heldBy: string | null = null;
      const watch = pinned
        ? setInterval(() => {
            if (child.pid === undefined || heldBy !== null) return;
            heldBy = fifoHolding(child.pid);
            if (heldBy !== null) killGroup();
          }, FIFO_WATCH_MS)
        : undefined;
      watch?.unref();
      const finish = (fn: () => void): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        clearInterval(watch);
        fn();
      };
      const timer = setTimeout(() => {
        timedOut = true;
        killGroup();
        finish(() => reject(new AppError("git_timeout", `git ${subText} timed out after ${timeoutMs} ms`, { args: sub, timeoutMs })));
      }, timeoutMs);

      child.stdout?.on("data", (chunk: Buffer) => {
        if (truncated) return;
        const max = opts.maxStdoutBytes;
        if (max !== undefined && outBytes + chunk.length > max) {
          out.push(chunk.subarray(0, max - outBytes));
          outBytes = max;
          truncated = true;
          killGroup();
          return;
        }
        out.push(chunk);
        outBytes += chunk.length;
      });
      child.stderr?.on("data", (chunk: Buffer) => {
        err.push(chunk);
        opts.onStderr?.(chunk.toString("utf8"));
      });
      if (opts.fd3 !== undefined) {
        const secret = child.stdio[3] as Writable | null;
        secret?.on("error", () => undefined);
        secret?.end(opts.fd3);
      }
      if (child.stdin) {
        child.stdin.on("error", () => undefined); // git may exit before reading all input (EPIPE)
        child.stdin.end(opts.input);
      }
      child.on("exit", release);
      child.on("error", (e) => {
        release();
        finish(() => reject(new AppError("git_failed", `git ${subText} could not start: ${e.message}`, { args: sub, exitCode: null })));
      });
      child.on("close", (code, signal) => {
        release();
        if (timedOut) return;
        const stdoutBuffer = Buffer.concat(out);
        const stderr = Buffer.concat(err).toString("utf8");
        const exitCode = code ?? (signal ? 128 + 9 : -1);
        finish(() => {
          if (heldBy !== null && typeof opts.cwd !== "string") {
            reject(heldByFifo(subText, sub, heldBy, opts.cwd));
            return;
          }
          const ok = truncated || exitCode === 0 || (opts.okExitCodes ?? []).includes(exitCode);
          if (!ok) {
            const why = lastLine(stderr) || (signal ? `killed by ${signal}` : "no message");
            reject(new AppError("git_failed", `git ${subText} failed (exit ${exitCode}): ${why}`, { args: sub, exitCode }));
            return;
          }
          const result: GitResult = { stdout: stdoutBuffer.toString("utf8"), stderr, exitCode, stdoutBuffer };
          if (truncated) result.stdoutTruncated = true;
          resolvePromise(result);
        });
      });
    });
  }

  /** Records the common dir a caller's own rev-parse found for `repoPath` (real paths both): one git process fewer later. */
  rememberCommonDir(repoPath: string, commonDir: string): void {
    this.commonDirs.set(repoPath, commonDir);
  }

  /**
   * The real path of `repoPath`'s common git dir, cached per given path: the identity of a
   * repository for locks and for SES-3 validation (a symlinked alias resolves to the same value).
   */
  async commonDir(repoPath: string): Promise<string> {
    const cached = this.commonDirs.get(repoPath);
    if (cached !== undefined) return cached;
    const { stdout } = await this.run(["rev-parse", "--git-common-dir"], { cwd: repoPath });
    const dir = await realpath(resolve(repoPath, stdout.replace(/\n$/, "")));
    this.commonDirs.set(repoPath, dir);
    return dir;
  }

  /**
   * Serializes mutations of one repository (WT-6). The key is the real path of the common git
   * dir, so the main checkout, its linked worktrees and any symlinked alias share one lock.
   * Re-entrant within one async call chain (the orchestrator may hold the lock around a
   * refresh and a `WorktreeManager.create` that takes it again). In-process only: cross-process
   * safety comes from git's own lock files and the database's compare-and-set.
   */
  async withRepoLock<T>(repoPath: string, fn: () => Promise<T>): Promise<T> {
    let key: string;
    try {
      key = await this.commonDir(repoPath);
    } catch {
      // Not (or no longer) a repository: the operation itself will report the real error.
      key = resolve(repoPath);
    }
    const held = this.heldLocks.get();
    if (held?.has(key)) return fn();

    const previous = this.lockTails.get(key) ?? Promise.resolve();
    let unlock!: () => void;
    const mine = new Promise<void>((r) => (unlock = r));
    const tail = previous.then(() => mine);
    this.lockTails.set(key, tail);
    await previous;
    try {
      return await this.heldLocks.run(new Set([...(held ?? []), key]), fn);
    } finally {
      unlock();
      if (this.lockTails.get(key) === tail) this.lockTails.delete(key);
    }
  }
}
