import { existsSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { mkdir, open, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { AppError } from "../../domain/errors.js";
import { assertBranchName } from "../../domain/layout.js";
import { branchExists, resolveCommit } from "../../git/repository.js";
import type { GitRunner } from "../../git/runner.js";
import type { WorktreeManager } from "../../git/worktrees.js";
import type { Log, PoolClaim, WorktreePoolPort } from "../context.js";
import { faultPoint } from "../fault-points.js";
import { recoverPoolDir, type ClaimRecord } from "./pool-recover.js";
import { readPlainText } from "../../git/plain-file.js";

/** GROVE_WORKTREE_POOL_SIZE / GROVE_WORKTREE_POOL_MAX_MB (config.ts). */
export interface PoolSettings {
  /** Prepared worktrees kept per repository and base; 0 = no pool. */
  size: number;
  /** The pool's disk budget over all repositories, in bytes (the checked-out blobs' sizes). */
  maxBytes: number;
}

interface Deps {
  git: GitRunner;
  worktrees: WorktreeManager;
  log: Log;
  home: string;
}

const hex = (s: string) => Buffer.from(s, "utf8").toString("hex");

/**
 * WT-10: prepared worktrees per repository and base, under `$GROVE_HOME/pool` — outside the
 * tasks directory, so they are no task's, never listed, never in Changes, never doctor's
 * strays. Each entry is a detached worktree at some commit of the base with an `<id>.ready`
 * marker. A launch claims one by creating `<id>.claim` exclusively (two claimers: one wins),
 * moves it to the slot's path, creates the task branch at the refreshed start point and checks
 * out only the difference. Fills run in the background outside the repository lock (a checkout
 * of a large repository must not block launches) and are bounded by count and disk.
 */
export class WorktreePool implements WorktreePoolPort {
  private readonly root: string;
  private readonly running = new Map<string, Promise<void>>();
  private readonly blobBytes = new Map<string, number>();
  private closing = false;
  private holds = 0;
  private unheld: (() => void)[] = [];

  constructor(
    private readonly deps: Deps,
    readonly settings: PoolSettings,
  ) {
    this.root = join(deps.home, "pool");
  }

  get enabled(): boolean {
    return this.settings.size > 0;
  }

  private dirOf(repositoryId: string, baseBranch: string): string {
    return join(this.root, repositoryId, hex(baseBranch));
  }

  /** Ready entries of one pool, oldest first (ids sort by time). */
  private async ready(dir: string): Promise<string[]> {
    const names = await readdir(dir).catch(() => [] as string[]);
    const claims = new Set(names.filter((n) => n.endsWith(".claim")).map((n) => n.slice(0, -6)));
    return names
      .filter((n) => n.endsWith(".ready"))
      .map((n) => n.slice(0, -6))
      .filter((id) => !claims.has(id) && names.includes(id))
      .sort();
  }

  /**
   * Hands a pooled worktree to a task slot, or answers null (no pool, none ready, every ready
   * one claimed by someone else) and the launch creates a worktree the ordinary way. What this
   * leaves on success is what `WorktreeManager.create` leaves: a worktree at `worktreePath` on
   * the new branch `branch` at `startPoint`.
   */
  async claim(c: PoolClaim): Promise<{ createdBranch: boolean } | null> {
    if (!this.enabled || this.closing) return null;
    const dir = this.dirOf(c.repositoryId, c.baseBranch);
    for (const id of await this.ready(dir)) {
      const record: ClaimRecord = { taskId: c.taskId, worktreePath: c.worktreePath, branch: c.branch };
      try {
        const fh = await open(join(dir, `${id}.claim`), "wx", 0o600);
        await fh.writeFile(JSON.stringify(record));
        await fh.close();
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === "EEXIST") continue;
        throw e;
      }
      return this.take(c, dir, id);
    }
    return null;
  }

  private async take(c: PoolClaim, dir: string, id: string): Promise<{ createdBranch: boolean }> {
    const from = join(dir, id);
    try {
      assertBranchName(c.branch, "branch");
      await this.deps.git.withRepoLock(c.repoPath, async () => {
        // A branch of that name appeared since the plan: not ours, refused like a fresh create.
        if (await branchExists(this.deps.git, c.repoPath, c.branch))
          throw new AppError("branch_exists", `branch ${c.branch} already exists`, { branch: c.branch });
        if (existsSync(c.worktreePath))
          throw new AppError("workspace_reuse_unsafe", `${c.worktreePath} already exists`, { reason: "path_exists", path: c.worktreePath });
        await mkdir(dirname(c.worktreePath), { recursive: true, mode: 0o700 });
        // Under the lock: no prune of ours runs between the move and git's new record of it.
        await this.deps.git.run(["worktree", "move", "--", from, c.worktreePath], { cwd: c.repoPath });
      });
    } catch (e) {
      // Nothing moved: the entry goes back to the pool.
      await rm(join(dir, `${id}.claim`), { force: true });
      throw e;
    }
    await faultPoint("pool.after_claim");
    const target = await resolveCommit(this.deps.git, c.repoPath, c.startPoint);
    if (target === null) throw new AppError("base_branch_not_found", `start point ${c.startPoint} does not exist`, { baseBranch: c.baseBranch });
    await this.deps.git.withRepoLock(c.repoPath, () => this.deps.git.run(["branch", "--no-track", c.branch, target], { cwd: c.repoPath }));
    await faultPoint("pool.after_branch");
    // SBX-4: the slot is under the tasks directory now; git runs there pinned.
    const pin = await this.deps.worktrees.pin({ repoPath: c.repoPath, worktreePath: c.worktreePath });
    // The pooled checkout is detached at some commit of the base (HEAD in its own admin dir).
    const pooledAt = ((await readPlainText(join(pin.gitDir, "HEAD"))) ?? "").trim();
    if (pooledAt === target) {
      // Already the refreshed base: only HEAD moves onto the new branch; index and files stay.
      await this.deps.git.run(["symbolic-ref", "HEAD", `refs/heads/${c.branch}`], { cwd: pin });
    } else {
      // The base moved on: git checks out the difference. -q: no report of local changes
      // afterwards (a walk of the whole tree; a pooled checkout has none).
      await this.deps.git.run(["switch", "-q", "--no-guess", c.branch], { cwd: pin });
    }
    await faultPoint("pool.after_checkout");
    // The worktree is the task's now (a crash from here on is the ordinary WT-7 adoption).
    await rm(join(dir, `${id}.ready`), { force: true });
    await rm(join(dir, `${id}.claim`), { force: true });
    return { createdBranch: true };
  }

  /** A start in progress: fills wait until every hold is released (then run, one per pool). */
  hold(): () => void {
    this.holds += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holds -= 1;
      if (this.holds === 0) for (const wake of this.unheld.splice(0)) wake();
    };
  }

  private quiet(): Promise<void> {
    return this.holds === 0 ? Promise.resolve() : new Promise<void>((r) => this.unheld.push(r));
  }

  /** Tops the pool of one repository and base up in the background (one fill at a time per pool). */
  refill(repositoryId: string, repoPath: string, baseBranch: string): void {
    if (!this.enabled || this.closing) return;
    const key = `${repositoryId}\0${baseBranch}`;
    const previous = this.running.get(key) ?? Promise.resolve();
    const next = previous
      .then(() => this.fill(repositoryId, repoPath, baseBranch))
      .catch((err: unknown) => this.deps.log.warn({ err, repositoryId, baseBranch }, "worktree pool: refill failed"))
      .finally(() => {
        if (this.running.get(key) === next) this.running.delete(key);
      });
    this.running.set(key, next);
  }

  private async fill(repositoryId: string, repoPath: string, baseBranch: string): Promise<void> {
    const dir = this.dirOf(repositoryId, baseBranch);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    while (!this.closing && (await this.ready(dir)).length < this.settings.size) {
      await this.quiet();
      if (this.closing) return;
      const bytes = await this.checkoutBytes(repoPath, baseBranch);
      if ((await this.usedBytes()) + bytes > this.settings.maxBytes) {
        this.deps.log.info({ repositoryId, baseBranch, bytes }, "worktree pool: disk budget reached, not filling");
        return;
      }
      // Ids sort by creation time: the oldest entry is claimed first.
      const id = `p${Date.now().toString(36).padStart(9, "0")}${randomBytes(4).toString("hex")}`;
      await this.deps.git.run(["worktree", "add", "--detach", "--", join(dir, id), `refs/heads/${baseBranch}`], { cwd: repoPath });
      await faultPoint("pool.after_refill_add");
      await writeFile(join(dir, `${id}.ready`), JSON.stringify({ bytes }), { mode: 0o600 });
    }
  }

  /** The checked-out size of the base's tree, measured once per repository and base. */
  private async checkoutBytes(repoPath: string, baseBranch: string): Promise<number> {
    const key = `${repoPath}\0${baseBranch}`;
    const known = this.blobBytes.get(key);
    if (known !== undefined) return known;
    const r = await this.deps.git.run(["ls-tree", "-r", "-l", "-z", "--full-tree", `refs/heads/${baseBranch}`], { cwd: repoPath, maxStdoutBytes: 1 << 30 });
    let total = 0;
    for (const entry of r.stdout.split("\0")) {
      const size = /^\S+ blob \S+\s+(\d+)\t/.exec(entry)?.[1];
      if (size) total += Number(size);
    }
    this.blobBytes.set(key, total);
    return total;
  }

  /** The disk the pool holds: each ready entry's marker records its checkout's size. */
  private async usedBytes(): Promise<number> {
    let total = 0;
    for (const repo of await readdir(this.root).catch(() => [] as string[])) {
      for (const base of await readdir(join(this.root, repo)).catch(() => [] as string[])) {
        const dir = join(this.root, repo, base);
        for (const n of await readdir(dir).catch(() => [] as string[])) {
          if (!n.endsWith(".ready")) continue;
          const text = await readFile(join(dir, n), "utf8").catch(() => "");
          total += Number((/"bytes":(\d+)/.exec(text) ?? [])[1] ?? 0);
        }
      }
    }
    return total;
  }

  /** Resolves once no fill is running (tests and the bench wait for a warm pool). */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running.values()]);
  }

  /**
   * Start-up, before any launch: every pool directory is put back in order (pool-recover.ts)
   * — each pooled worktree ends up either in the pool or as exactly one task's — and then
   * topped up. `repositories` are this runner's.
   */
  async recover(repositories: readonly { id: string; path: string }[]): Promise<void> {
    for (const repo of repositories) {
      const bases = await readdir(join(this.root, repo.id)).catch(() => [] as string[]);
      for (const base of bases) {
        const baseBranch = Buffer.from(base, "hex").toString("utf8");
        await recoverPoolDir({ ...this.deps, repoPath: repo.path, dir: join(this.root, repo.id, base) });
        this.refill(repo.id, repo.path, baseBranch);
      }
    }
  }

  /** Shutdown: no new claim or fill; the fill under way finishes its git process. */
  async close(): Promise<void> {
    this.closing = true;
    for (const wake of this.unheld.splice(0)) wake();
    await this.idle();
  }
}
