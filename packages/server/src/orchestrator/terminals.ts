/**
 * Terminal registry: at most one shell per (task, repository) on this server process, kept
 * while the server runs so a page reload reattaches to it (the last output is replayed).
 * Shells belong to their task: cleanup (archive, delete, reset) kills them — in their own pid
 * namespace, everything they started — and waits for that before it touches the worktree
 * (LC-3), and a closing server kills the ones it started.
 */
import { spawnShell, type Pty } from "../agents/pty.js";
import { bwrapStatus } from "../sandbox/bwrap.js";

const REPLAY_BYTES = 64 * 1024;

interface Entry {
  key: string;
  taskId: string;
  owner: object;
  pty: Pty;
  replay: string;
  clients: Set<Client>;
}

/** One attached page. */
export interface Client {
  send(data: string): void;
  /** The shell ended (exit or kill); the page shows it and may reattach (a new shell). */
  ended(reason: string): void;
}

export class TerminalRegistry {
  private readonly entries = new Map<string, Entry>();

  /**
   * Attaches a page to the task's shell in `cwd`, starting one if none runs. `owner` is the
   * server that asked (its close kills its shells). `bwrap`: the configured bubblewrap
   * (`Config.bwrap`); where it cannot run, the shell runs in its process group only (TERM-6).
   */
  attach(
    opts: { taskId: string; repositoryId: string; cwd: string; cols: number; rows: number; env: NodeJS.ProcessEnv; bwrap: string; owner: object },
    client: Client,
  ): { write(d: string): void; resize(c: number, r: number): void; detach(): void } {
    const key = `${opts.taskId}\0${opts.repositoryId}`;
    let e = this.entries.get(key);
    if (!e) {
      const sandbox = bwrapStatus(opts.bwrap, opts.env.PATH);
      const pty = spawnShell({ cwd: opts.cwd, cols: opts.cols, rows: opts.rows, env: opts.env, bwrap: sandbox.available ? sandbox.path : undefined });
      const entry: Entry = { key, taskId: opts.taskId, owner: opts.owner, pty, replay: "", clients: new Set() };
      pty.onData((d) => {
        entry.replay = (entry.replay + d).slice(-REPLAY_BYTES);
        for (const c of entry.clients) c.send(d);
      });
      pty.onExit((code) => {
        if (this.entries.get(key) === entry) this.entries.delete(key);
        for (const c of entry.clients) c.ended(`shell exited (${code})`);
        entry.clients.clear();
      });
      this.entries.set(key, entry);
      e = entry;
    } else if (e.replay) client.send(e.replay);
    const entry = e;
    entry.clients.add(client);
    return {
      write: (d) => entry.pty.write(d),
      resize: (c, r) => entry.pty.resize(Math.max(2, Math.min(500, c)), Math.max(2, Math.min(300, r))),
      detach: () => entry.clients.delete(client),
    };
  }

  /** Pids of the task's shells (tests and diagnostics). */
  pidsOf(taskId: string): number[] {
    return [...this.entries.values()].filter((e) => e.taskId === taskId).map((e) => e.pty.pid);
  }

  /**
   * Kills every shell of the task (LC-3: before its worktrees are removed) and resolves once they
   * are gone: SIGHUP first, like closing the window, then SIGKILL. A shell in its own pid
   * namespace takes everything it started with it, `nohup` and `setsid` jobs included.
   */
  killTask(taskId: string): Promise<void> {
    return this.killWhere((e) => e.taskId === taskId);
  }

  /** Kills the shells a closing server started. */
  killOwner(owner: object): Promise<void> {
    return this.killWhere((e) => e.owner === owner);
  }

  private async killWhere(pred: (e: Entry) => boolean): Promise<void> {
    const victims = [...this.entries.values()].filter(pred);
    await Promise.all(
      victims.map(async (e) => {
        this.entries.delete(e.key);
        for (const c of e.clients) c.ended("the task's terminal was closed by cleanup");
        e.clients.clear();
        e.pty.kill("SIGHUP");
        if (await e.pty.settled(HANGUP_GRACE_MS)) return;
        e.pty.kill("SIGKILL");
        await e.pty.settled(KILL_WAIT_MS);
      }),
    );
  }
}

const HANGUP_GRACE_MS = 1000;
const KILL_WAIT_MS = 5000;

/** This server process's terminals. */
export const terminals = new TerminalRegistry();
