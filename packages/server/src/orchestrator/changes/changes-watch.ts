import { existsSync } from "node:fs";
import { join } from "node:path";
import type { EventFrame } from "@grove/protocol";
import type { AgentHandle } from "../../agents/runtime.js";
import { DEFAULT_TUNING } from "../../config.js";
import type { Deps } from "../context.js";
import { WorktreeTreeWatch } from "./changes-watch-tree.js";
import { getRepositoryOnThisRunner } from "../refresh/repository-on-runner.js";

const DEBOUNCE_MS = 250;
/** Tasks reconsidered at a time by the start-up sweep: bounded, so queries never pile up. */
const WATCH_ALL_BATCH = 16;

interface Watched {
  repositoryId: string;
  root: string;
  tree: WorktreeTreeWatch;
  timer?: NodeJS.Timeout;
  /** The root was seen gone (WT-5): its watchers are closed until the worktree is back. */
  vanished: boolean;
  checking: boolean;
}

interface TaskWatch {
  /** The watched roots, in order: a different set means the task is watched again. */
  key: string;
  entries: Watched[];
}

/**
 * The private git dir of a linked worktree and its `logs/`: the admin dir git recorded for the
 * path (SBX-4, never what the worktree's own `.git` names; no git process). Nothing when the
 * worktree is not (or no longer) the recorded one: its root is still watched.
 */
async function privateGitDir(deps: Pick<Deps, "store" | "worktrees" | "home" | "remote">, repositoryId: string, worktreePath: string): Promise<string[]> {
  const repo = await getRepositoryOnThisRunner(deps, repositoryId).catch(() => undefined);
  if (!repo) return [];
  const admin = await deps.worktrees.link({ repoPath: repo.path, worktreePath }).catch(() => undefined);
  const dir = admin?.state === "ok" ? admin.pin.gitDir : admin?.state === "tampered" || admin?.state === "unlinked" ? admin.adminDir : undefined;
  return dir ? [dir, join(dir, "logs")] : [];
}

/** Session events that may change which worktrees of a task exist or are active. */
const RECONSIDER: ReadonlySet<string> = new Set(["session.state_changed", "session.deleted", "task.deleted", "task.updated", "environment.updated"]);

/** The ports (orchestrator/context.ts) ChangesWatch uses. */
export type ChangesWatchPorts = Pick<Deps, "store" | "worktrees" | "agents" | "bus" | "log" | "home" | "runnerId" | "remote" | "tuning">;

/**
 * CHG-3: live `changes.updated` from file-system watching of EVERY active worktree of this
 * runner's ready environments (a person's own edits with no agent running included), and WT-5's
 * watcher: a worktree root that vanishes is noticed at once — `changes.updated` and
 * `environment.updated` are published (the API then projects the row as `missing`) and the
 * task's live agents are stopped before they can write a plain directory into the empty path.
 * Watching never spawns git and never polls: an idle worktree costs inotify watches only. A
 * watched worktree's events are debounced per slot (250 ms) into one `changes.updated
 * {taskId, repositoryId}`; clients refetch the Changes. See the ADR on changes watching.
 */
export class ChangesWatch {
  private readonly tasks = new Map<string, TaskWatch>();
  /** Tasks whose watchers are all in place. */
  private readonly ready = new Set<string>();
  private readonly pending = new Map<string, Promise<void>>();
  private unsubscribe: (() => void) | undefined;
  private disposed = false;

  /** CHG-3: GROVE_WATCH_MAX_DIRS, directories watched per worktree. */
  private readonly maxDirs: number;

  constructor(private readonly deps: ChangesWatchPorts) {
    this.maxDirs = (deps.tuning ?? DEFAULT_TUNING).watchMaxDirs;
  }

  /** Subscribes to task, session and environment events on the bus. */
  start(): void {
    this.unsubscribe = this.deps.bus.subscribe((f: EventFrame) => {
      if (!RECONSIDER.has(f.type)) return;
      const data = f.data as { taskId?: string; task?: { id: string }; session?: { taskId: string } };
      const taskId = data.taskId ?? data.task?.id ?? data.session?.taskId;
      if (taskId) this.reconsider(taskId);
    });
  }

  /** Start-up: watch every active worktree of this runner's ready environments. */
  async watchAll(): Promise<void> {
    // Only tasks that can have a watched worktree (what `desired` re-checks): with 10,000 tasks,
    // reconsidering all of them at once queued 30,000 queries on the one SQLite connection, whose
    // mutex wakes every waiter on each release — a minute of CPU after `listening`.
    // Events published meanwhile reconsider their task themselves (`start`).
    const candidates = (await this.deps.store.listTaskInventory()).filter(
      (t) =>
        !t.archivedAt &&
        t.environment?.status === "ready" &&
        t.environment.runnerId === this.deps.runnerId &&
        t.rows.some((r) => r.status === "active" && r.worktreePath),
    );
    for (let i = 0; i < candidates.length && !this.disposed; i += WATCH_ALL_BATCH) {
      const batch = candidates.slice(i, i + WATCH_ALL_BATCH);
      for (const t of batch) this.reconsider(t.taskId);
      await Promise.all(batch.map((t) => this.pending.get(t.taskId)));
    }
  }

  /** Task ids whose worktrees are fully watched (tests, doctor). */
  watchedTasks(): string[] {
    return [...this.ready];
  }

  /** The active worktree roots a task should have watched (empty: none). */
  private async desired(taskId: string): Promise<{ repositoryId: string; root: string }[]> {
    const task = await this.deps.store.getTask(taskId);
    if (!task || task.archivedAt) return [];
    const env = await this.deps.store.getEnvironmentByTask(taskId);
    if (!env || env.status !== "ready" || env.runnerId !== this.deps.runnerId) return [];
    const rows = await this.deps.store.listEnvironmentRepos(env.id);
    return rows.filter((r) => r.status === "active" && r.worktreePath).map((r) => ({ repositoryId: r.repositoryId, root: r.worktreePath! }));
  }

  /** Serialized per task: (re)starts or stops watching to match the task's active worktrees. */
  reconsider(taskId: string): void {
    if (this.disposed) return;
    const prev = this.pending.get(taskId) ?? Promise.resolve();
    const next = prev
      .then(async () => {
        const want = await this.desired(taskId);
        const key = want.map((w) => w.root).join("\0");
        const have = this.tasks.get(taskId);
        const comeBack = have?.entries.some((e) => e.vanished && existsSync(e.root)) ?? false;
        if (have && have.key === key && !comeBack) return;
        if (have) this.unwatchTask(taskId);
        if (want.length > 0 && !this.disposed) await this.watchTask(taskId, key, want);
      })
      .catch((err: unknown) => this.deps.log.warn({ err, taskId }, "changes watch update failed"));
    this.pending.set(taskId, next);
    void next.then(() => {
      if (this.pending.get(taskId) === next) this.pending.delete(taskId);
    });
  }

  private async watchTask(taskId: string, key: string, want: { repositoryId: string; root: string }[]): Promise<void> {
    const tw: TaskWatch = { key, entries: [] };
    this.tasks.set(taskId, tw);
    for (const w of want) {
      const entry: Watched = {
        repositoryId: w.repositoryId,
        root: w.root,
        vanished: !existsSync(w.root),
        checking: false,
        tree: new WorktreeTreeWatch(() => this.changed(taskId, entry), this.maxDirs),
      };
      tw.entries.push(entry);
      if (entry.vanished) continue;
      await entry.tree.start(w.root, await privateGitDir(this.deps, w.repositoryId, w.root));
      if (entry.tree.capped) this.deps.log.info({ taskId, worktreePath: w.root, maxDirs: this.maxDirs }, "worktree has more directories than the watch cap");
    }
    if (this.tasks.get(taskId) === tw) this.ready.add(taskId);
  }

  private unwatchTask(taskId: string): void {
    for (const w of this.tasks.get(taskId)?.entries ?? []) {
      clearTimeout(w.timer);
      w.tree.close();
    }
    this.tasks.delete(taskId);
    this.ready.delete(taskId);
  }

  private changed(taskId: string, entry: Watched): void {
    if (!entry.checking && !entry.vanished) {
      // WT-5: is the root itself gone? One stat per burst of events, not per event.
      entry.checking = true;
      setImmediate(() => {
        entry.checking = false;
        if (!entry.vanished && !existsSync(entry.root)) void this.vanished(taskId, entry);
      });
    }
    clearTimeout(entry.timer);
    entry.timer = setTimeout(() => {
      entry.timer = undefined;
      this.deps.bus.publish("changes.updated", { taskId, repositoryId: entry.repositoryId });
    }, DEBOUNCE_MS);
    entry.timer.unref();
  }

  /**
   * WT-5: a watched worktree root vanished. The task's agents that live now (started in the
   * vanished path) are stopped through the runtime's own stop — a relaunch that already
   * recreated the path and started a new agent is left alone — and clients are told to refetch.
   */
  private async vanished(taskId: string, entry: Watched): Promise<void> {
    entry.vanished = true;
    entry.tree.close();
    this.deps.log.warn({ taskId, worktreePath: entry.root }, "a watched worktree root vanished: stopping the task's agents (WT-5)");
    const sessions = await this.deps.store.listSessions(taskId).catch(() => []);
    const live = sessions.map((s) => [s.id, this.deps.agents.get(s.id)] as const).filter((x): x is readonly [string, AgentHandle] => x[1] !== undefined);
    await Promise.all(
      live.map(([id, handle]) => (!existsSync(entry.root) && this.deps.agents.get(id) === handle ? this.deps.agents.stop(id) : undefined)),
    ).catch((err: unknown) => this.deps.log.warn({ err, taskId }, "stopping agents of a vanished worktree failed"));
    const env = await this.deps.store.getEnvironmentByTask(taskId).catch(() => undefined);
    if (env) this.deps.bus.publish("environment.updated", { taskId, environmentId: env.id, status: env.status });
    this.deps.bus.publish("changes.updated", { taskId, repositoryId: entry.repositoryId });
  }

  dispose(): void {
    this.disposed = true;
    this.unsubscribe?.();
    for (const id of [...this.tasks.keys()]) this.unwatchTask(id);
  }
}
