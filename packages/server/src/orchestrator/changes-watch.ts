import { readFile } from "node:fs/promises";
import { isAbsolute, join, resolve } from "node:path";
import type { EventFrame } from "@grove/protocol";
import type { Deps } from "./context.js";
import { WorktreeTreeWatch } from "./changes-watch-tree.js";

const DEBOUNCE_MS = 250;
const MAX_DIRS_PER_WORKTREE = Number.parseInt(process.env.GROVE_WATCH_MAX_DIRS ?? "", 10) || 4000;

interface Watched {
  repositoryId: string;
  tree: WorktreeTreeWatch;
  timer?: NodeJS.Timeout;
}

/** The private git dir of a linked worktree, read from its `.git` file (no git process). */
async function privateGitDir(worktreePath: string): Promise<string[]> {
  try {
    const text = await readFile(join(worktreePath, ".git"), "utf8");
    const m = /^gitdir: (.+)$/m.exec(text);
    if (!m?.[1]) return [];
    const dir = isAbsolute(m[1]) ? m[1] : resolve(worktreePath, m[1]);
    return [dir, join(dir, "logs")];
  } catch {
    // A main checkout has a .git directory: its metadata is at .git itself.
    return [join(worktreePath, ".git"), join(worktreePath, ".git", "logs")];
  }
}

/**
 * CHG-3: live `changes.updated` from file-system watching, scoped to tasks that have a live
 * agent in this process — the only worktrees that change without a person's explicit action.
 * Idle worktrees are not watched and never polled: no timer, no git process. A watched
 * worktree's events are debounced per slot (250 ms) into one `changes.updated
 * {taskId, repositoryId}`; clients refetch the Changes. Watching starts when a session of the
 * task changes state while its agent is alive and stops when a state change or a file event
 * finds no live agent left.
 */
export class ChangesWatch {
  private readonly tasks = new Map<string, Watched[]>();
  /** Tasks whose watchers are all in place. */
  private readonly ready = new Set<string>();
  private readonly pending = new Map<string, Promise<void>>();
  private unsubscribe: (() => void) | undefined;

  constructor(private readonly deps: Deps) {}

  /** Subscribes to session events on the bus. */
  start(): void {
    this.unsubscribe = this.deps.bus.subscribe((f: EventFrame) => {
      if (f.type === "session.state_changed") {
        const { session } = f.data as EventFrame<"session.state_changed">["data"];
        this.reconsider(session.taskId);
      } else if (f.type === "session.deleted" || f.type === "task.deleted") {
        this.reconsider((f.data as { taskId: string }).taskId);
      }
    });
  }

  /** Task ids whose worktrees are fully watched (tests, doctor). */
  watchedTasks(): string[] {
    return [...this.ready];
  }

  private async hasLiveAgent(taskId: string): Promise<boolean> {
    const sessions = await this.deps.store.listSessions(taskId).catch(() => []);
    return sessions.some((s) => this.deps.agents.get(s.id) !== undefined);
  }

  /** Serialized per task: starts or stops watching to match whether the task has a live agent. */
  reconsider(taskId: string): void {
    const prev = this.pending.get(taskId) ?? Promise.resolve();
    const next = prev
      .then(async () => {
        const live = await this.hasLiveAgent(taskId);
        if (live && !this.tasks.has(taskId)) await this.watchTask(taskId);
        else if (!live && this.tasks.has(taskId)) this.unwatchTask(taskId);
      })
      .catch((err: unknown) => this.deps.log.warn({ err, taskId }, "changes watch update failed"));
    this.pending.set(taskId, next);
    void next.then(() => {
      if (this.pending.get(taskId) === next) this.pending.delete(taskId);
    });
  }

  private async watchTask(taskId: string): Promise<void> {
    const env = await this.deps.store.getEnvironmentByTask(taskId);
    if (!env) return;
    const rows = (await this.deps.store.listEnvironmentRepos(env.id)).filter((r) => r.status === "active" && r.worktreePath);
    const watched: Watched[] = [];
    this.tasks.set(taskId, watched);
    for (const row of rows) {
      const entry: Watched = { repositoryId: row.repositoryId, tree: new WorktreeTreeWatch(() => this.changed(taskId, entry), MAX_DIRS_PER_WORKTREE) };
      watched.push(entry);
      await entry.tree.start(row.worktreePath!, await privateGitDir(row.worktreePath!));
      if (entry.tree.capped) this.deps.log.info({ taskId, worktreePath: row.worktreePath, maxDirs: MAX_DIRS_PER_WORKTREE }, "worktree has more directories than the watch cap");
    }
    if (this.tasks.get(taskId) === watched) this.ready.add(taskId);
  }

  private unwatchTask(taskId: string): void {
    for (const w of this.tasks.get(taskId) ?? []) {
      clearTimeout(w.timer);
      w.tree.close();
    }
    this.tasks.delete(taskId);
    this.ready.delete(taskId);
  }

  private changed(taskId: string, entry: Watched): void {
    clearTimeout(entry.timer);
    entry.timer = setTimeout(() => {
      entry.timer = undefined;
      this.deps.bus.publish("changes.updated", { taskId, repositoryId: entry.repositoryId });
      // The agent may have exited quietly since: stop watching if so (no state change tells us).
      this.reconsider(taskId);
    }, DEBOUNCE_MS);
    entry.timer.unref();
  }

  dispose(): void {
    this.unsubscribe?.();
    for (const id of [...this.tasks.keys()]) this.unwatchTask(id);
  }
}
