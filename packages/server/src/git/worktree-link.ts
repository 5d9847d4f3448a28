import { lstat, readdir, realpath, rename, rm, writeFile } from "node:fs/promises";
import { randomBytes } from "node:crypto";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { readPlainText } from "./plain-file.js";

/**
 * SBX-4: where git runs for a task worktree. `gitDir` is the admin dir git keeps for the worktree
 * (`<common>/worktrees/<name>`), found from the repository's side, never from the worktree's own
 * `.git` file, which whatever runs in the worktree can rewrite. The runner passes both as
 * `GIT_DIR` / `GIT_WORK_TREE`, so a planted `.git` (pointing at a git dir with its own config,
 * `core.fsmonitor` command included) is never read.
 */
export interface PinnedWorktree {
  readonly workTree: string;
  readonly gitDir: string;
}

/** Where one git call runs: a plain directory (the person's checkout, a managed clone) or a pinned task worktree. */
export type GitCwd = string | PinnedWorktree;

/** The directory a `GitCwd` names on disk. */
export function workTreeOf(cwd: GitCwd): string {
  return typeof cwd === "string" ? cwd : cwd.workTree;
}

/**
 * What a recorded worktree path holds, seen from the repository's admin dirs:
 * - `ok`: git records an admin dir for this path and the worktree's `.git` file points at it;
 * - `unregistered`: no admin dir of the repository records this path (missing, foreign, pruned);
 * - `unlinked`: git records it, but there is no `.git` at all (a plain directory now stands there);
 * - `tampered`: git records it, and its `.git` points somewhere else (another git dir, a symlink,
 *   a directory of its own): `workspace_tampered`, nothing runs there until it is repaired.
 */
export type WorktreeLink =
  | { state: "ok"; pin: PinnedWorktree }
  | { state: "unregistered" }
  | { state: "unlinked"; adminDir: string }
  | { state: "tampered"; adminDir: string; message: string };

async function realOrNull(path: string): Promise<string | null> {
  try {
    return await realpath(path);
  } catch {
    return null;
  }
}

/** A small file of git's, trimmed; null when it is not a plain file (an agent can write them: plain-file.ts). */
async function readTrimmed(path: string): Promise<string | null> {
  return (await readPlainText(path))?.trim() ?? null;
}

/**
 * Finds the admin dir of a linked worktree from the repository side: the one dir under
 * `<common>/worktrees/` whose `gitdir` file names `<worktreePath>/.git`. One scan of a common
 * dir indexes every worktree it holds (a restart's watcher sweep over thousands of worktrees
 * costs one scan, not one per worktree); a cached answer is re-checked with one small read, and
 * a path not in the index rescans. Only files outside the worktree are read.
 */
export class WorktreeLinks {
  private readonly index = new Map<string, Map<string, string>>();
  private readonly scanning = new Map<string, Promise<Map<string, string>>>();

  private async records(adminDir: string, wanted: readonly string[]): Promise<boolean> {
    const recorded = await readTrimmed(join(adminDir, "gitdir"));
    if (!recorded) return false;
    const abs = isAbsolute(recorded) ? recorded : resolve(adminDir, recorded);
    if (wanted.includes(abs)) return true;
    const real = await realOrNull(abs);
    return real !== null && wanted.includes(real);
  }

  /** `<worktree>/.git` as recorded (lexical and real) → admin dir, for every worktree of the common dir. */
  private scan(commonDir: string): Promise<Map<string, string>> {
    const running = this.scanning.get(commonDir);
    if (running) return running;
    const next = (async () => {
      const out = new Map<string, string>();
      const root = join(commonDir, "worktrees");
      const names = await readdir(root).catch(() => [] as string[]);
      await Promise.all(
        names.map(async (name) => {
          const dir = join(root, name);
          const recorded = await readTrimmed(join(dir, "gitdir"));
          if (!recorded) return;
          const abs = isAbsolute(recorded) ? recorded : resolve(dir, recorded);
          out.set(abs, dir);
          const real = await realOrNull(abs);
          if (real !== null) out.set(real, dir);
        }),
      );
      this.index.set(commonDir, out);
      return out;
    })().finally(() => this.scanning.delete(commonDir));
    this.scanning.set(commonDir, next);
    return next;
  }

  /**
   * Every linked worktree the repository records (what `git worktree list` lists after the main
   * checkout), as the paths its admin dirs name, lexical and real: read afresh, no git process.
   */
  async recordedWorktrees(commonDir: string): Promise<string[]> {
    return [...new Set([...(await this.scan(commonDir)).keys()].map((dotGit) => dirname(dotGit)))];
  }

  /** The admin dir git records for `worktreePath` in the repository whose common dir is `commonDir`, or null. */
  async adminDir(commonDir: string, worktreePath: string): Promise<string | null> {
    const lexical = resolve(worktreePath);
    const realTop = await realOrNull(lexical);
    const wanted = [join(lexical, ".git"), ...(realTop ? [join(realTop, ".git")] : [])];
    const lookup = (m: Map<string, string> | undefined) => wanted.map((w) => m?.get(w)).find((d) => d !== undefined);
    const cached = lookup(this.index.get(commonDir));
    if (cached !== undefined && (await this.records(cached, wanted))) return cached;
    // A scan already under way may have read the directory before this worktree was added.
    const joined = this.scanning.has(commonDir);
    let found = lookup(await this.scan(commonDir));
    if (found === undefined && joined) found = lookup(await this.scan(commonDir));
    return found !== undefined && (await this.records(found, wanted)) ? found : null;
  }

  /** SBX-4: the worktree's link state (see WorktreeLink). Reads `<worktree>/.git` without following it. */
  async check(commonDir: string, worktreePath: string): Promise<WorktreeLink> {
    const adminDir = await this.adminDir(commonDir, worktreePath);
    if (adminDir === null) return { state: "unregistered" };
    const dotGit = join(worktreePath, ".git");
    let st;
    try {
      st = await lstat(dotGit);
    } catch {
      return { state: "unlinked", adminDir };
    }
    const tampered = (why: string): WorktreeLink => ({ state: "tampered", adminDir, message: `${dotGit} ${why}, not to its recorded git dir ${adminDir}` });
    if (st.isSymbolicLink()) return tampered("is a symbolic link");
    if (st.isDirectory()) return tampered("is a git directory of its own");
    if (!st.isFile()) return tampered("is not git's link file");
    const text = await readTrimmed(dotGit);
    const m = text === null ? null : /^gitdir: (.+)$/.exec(text.split("\n")[0] ?? "");
    if (!m?.[1]) return tampered("holds no gitdir link");
    const target = isAbsolute(m[1]) ? m[1] : resolve(worktreePath, m[1]);
    const [realTarget, realAdmin] = await Promise.all([realOrNull(target), realOrNull(adminDir)]);
    if (realTarget === null || realTarget !== realAdmin) return tampered(`points to ${m[1]}`);
    return { state: "ok", pin: { workTree: resolve(worktreePath), gitDir: adminDir } };
  }

  /**
   * SBX-4 repair: writes `gitdir: <adminDir>` back as the worktree's `.git` (a file or symlink is
   * replaced atomically; a `.git` directory is never deleted — the caller refuses that case).
   * Whatever else the worktree holds (a planted git dir included) stays: it is the task's content.
   */
  async repair(adminDir: string, worktreePath: string): Promise<void> {
    const dotGit = join(worktreePath, ".git");
    const tmp = join(worktreePath, `.git.grove-repair-${randomBytes(4).toString("hex")}`);
    await writeFile(tmp, `gitdir: ${adminDir}\n`, { flag: "wx", mode: 0o644 });
    try {
      await rename(tmp, dotGit);
    } catch (e) {
      await rm(tmp, { force: true });
      throw e;
    }
  }
}
