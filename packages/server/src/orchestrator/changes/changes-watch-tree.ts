import { watch, type FSWatcher } from "node:fs";
import { lstat, readdir } from "node:fs/promises";
import { join } from "node:path";

/** Directory names never watched: git's own metadata (watched separately) and dependency trees. */
const SKIP = new Set([".git", "node_modules"]);

/**
 * CHG-3: one worktree watched with one non-recursive `fs.watch` per directory (Node 20 has no
 * recursive watching on Linux), plus the worktree's private git dir and its `logs/` (HEAD, index
 * and the HEAD reflog change on add, commit, checkout, reset). New directories get a watcher as
 * they appear. At most `maxDirs` directories are watched; beyond that a change deeper down is
 * still seen through the agent's tool-call completions (see the ADR). Emits `onChange` on any
 * event; the caller debounces. Spawns no process.
 */
export class WorktreeTreeWatch {
  private readonly watchers = new Map<string, FSWatcher>();
  private closed = false;
  /** Set when the directory cap was reached (some directories are not watched). */
  capped = false;

  constructor(
    private readonly onChange: () => void,
    private readonly maxDirs: number,
  ) {}

  get size(): number {
    return this.watchers.size;
  }

  /** Watches `root` and every directory below it (breadth-first, within the cap), plus the git dirs. */
  async start(root: string, gitDirs: readonly string[]): Promise<void> {
    for (const g of gitDirs) this.add(g, false);
    await this.addTree(root);
  }

  private async addTree(root: string): Promise<void> {
    const queue = [root];
    while (queue.length > 0 && !this.closed) {
      const dir = queue.shift()!;
      if (!this.add(dir, true)) return;
      const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
      for (const e of entries) if (e.isDirectory() && !SKIP.has(e.name)) queue.push(join(dir, e.name));
    }
  }

  private add(dir: string, followNewDirs: boolean): boolean {
    if (this.closed || this.watchers.has(dir)) return true;
    if (this.watchers.size >= this.maxDirs) {
      this.capped = true;
      return false;
    }
    let w: FSWatcher;
    try {
      w = watch(dir, { persistent: false }, (_event, filename) => {
        this.onChange();
        if (followNewDirs && typeof filename === "string" && !SKIP.has(filename)) {
          const child = join(dir, filename);
          if (!this.watchers.has(child)) {
            void lstat(child)
              .then((st) => (st.isDirectory() ? this.addTree(child) : undefined))
              .catch(() => undefined);
          }
        }
      });
    } catch {
      return true; // vanished or unreadable: nothing to watch there
    }
    // A watched directory that is deleted errors or simply stops: forget it either way.
    w.on("error", () => this.drop(dir));
    this.watchers.set(dir, w);
    return true;
  }

  private drop(dir: string): void {
    this.watchers.get(dir)?.close();
    this.watchers.delete(dir);
  }

  close(): void {
    this.closed = true;
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
  }
}
