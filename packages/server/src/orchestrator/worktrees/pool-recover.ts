import { existsSync } from "node:fs";
import { readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { branchExists } from "../../git/repository.js";
import type { GitRunner } from "../../git/runner.js";
import type { WorktreeManager } from "../../git/worktrees.js";
import type { Log } from "../context.js";

/** `<id>.claim`: the claim's intent, written with O_EXCL before anything moves (the compare-and-set). */
export interface ClaimRecord {
  taskId: string;
  worktreePath: string;
  branch: string;
}

interface RecoverDeps {
  git: GitRunner;
  worktrees: WorktreeManager;
  log: Log;
  repoPath: string;
  /** One pool directory: `$GROVE_HOME/pool/<repositoryId>/<base hex>`. */
  dir: string;
}

async function claimOf(path: string): Promise<ClaimRecord | null> {
  try {
    const r = JSON.parse(await readFile(path, "utf8")) as Partial<ClaimRecord>;
    return typeof r.worktreePath === "string" && typeof r.branch === "string" && typeof r.taskId === "string" ? (r as ClaimRecord) : null;
  } catch {
    return null;
  }
}

/**
 * WT-10 after a crash, before any launch: every entry of one pool directory ends up either in
 * the pool (ready, unclaimed) or as exactly one task's worktree, never both and never lost:
 * - a claim whose worktree never moved: the claim goes, the entry is pooled again;
 * - a claim whose worktree moved to the task's slot (at any step up to the checkout): git's
 *   record of it is repaired, it moves back into the pool, detached, and the branch the claim
 *   created is deleted, so the task's next launch starts clean and doctor finds no stray;
 * - a fill that never finished (no `.ready`): removed; a marker without its worktree: removed.
 */
export async function recoverPoolDir(d: RecoverDeps): Promise<void> {
  const { git, repoPath, dir } = d;
  const names = new Set(await readdir(dir).catch(() => [] as string[]));
  const ids = new Set([...names].map((n) => n.replace(/\.(ready|claim)$/, "")).filter((n) => !n.includes(".")));
  await git.withRepoLock(repoPath, async () => {
    for (const id of ids) {
      const path = join(dir, id);
      const claimFile = join(dir, `${id}.claim`);
      const readyFile = join(dir, `${id}.ready`);
      const here = existsSync(path);
      if (names.has(`${id}.claim`)) {
        const claim = await claimOf(claimFile);
        if (here || claim === null) {
          await rm(claimFile, { force: true });
          if (here) continue;
        } else if (existsSync(claim.worktreePath)) {
          // Moved to the slot, the row never written (the claim file goes only after the checkout
          // and before the launch persists its row): back into the pool, detached, and the
          // branch the claim created goes, so the task's next launch starts clean.
          await git.run(["worktree", "repair", "--", resolve(claim.worktreePath)], { cwd: repoPath });
          await git.run(["worktree", "move", "--", claim.worktreePath, path], { cwd: repoPath });
          await git.run(["switch", "--detach"], { cwd: await d.worktrees.pin({ repoPath, worktreePath: path }) });
          const holders = (await d.worktrees.list(repoPath)).filter((e) => e.branch === claim.branch);
          if (holders.length === 0 && (await branchExists(git, repoPath, claim.branch))) await git.run(["branch", "-D", "--", claim.branch], { cwd: repoPath });
          await writeFile(readyFile, JSON.stringify({ bytes: 0 }), { mode: 0o600 });
          await rm(claimFile, { force: true });
          d.log.warn({ taskId: claim.taskId }, "worktree pool: an interrupted claim was undone, the worktree is pooled again");
          continue;
        }
        await rm(claimFile, { force: true });
        await rm(readyFile, { force: true });
        continue;
      }
      if (here && !names.has(`${id}.ready`)) {
        await git.run(["worktree", "remove", "--force", "--force", "--", path], { cwd: repoPath }).catch(() => rm(path, { recursive: true, force: true }));
      } else if (!here) {
        await rm(readyFile, { force: true });
      }
    }
    await git.run(["worktree", "prune"], { cwd: repoPath });
  });
}
