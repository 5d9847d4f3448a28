import { join } from "node:path";
import type { CleanupJobRecord, CleanupSlot } from "../../domain/cleanup-job.js";
import type { EnvironmentRepoRecord } from "../../domain/records.js";
import { archivedWorkRef, deleteRef, ignoredAmong, moveRef, readRef, restoreWorkFromRef, saveWorkToRef, savedParents } from "../../git/archive-ref.js";
import { branchExists } from "../../git/repository.js";
import type { Deps } from "../context.js";
import type { RefreshContext } from "../planned-slot.js";
import { expandGlobs } from "./worktree-copy.js";
import { warnOnSession } from "./session-warning.js";
import { readPlainFile } from "../../git/plain-file.js";

/**
 * LC-8 on archive / reset / delete (LIVE-5: the trash keeps it until the purge): saves the worktree's uncommitted work
 * on the slot's private ref. Ignored files matching the repository's copy-files globs (WT-9,
 * e.g. `.env`) go into the save too — `worktree remove --force` would destroy them; an edited
 * one alone is reason enough to save (an unedited copy can be copied again from the source).
 * Returns the saved commit or null.
 */
export async function saveSlotWork(
  deps: Pick<Deps, "store" | "git" | "worktrees" | "log">,
  job: CleanupJobRecord,
  slot: CleanupSlot,
  ref: string,
): Promise<string | null> {
  const worktree = await deps.worktrees.pin({ repoPath: slot.repoPath, worktreePath: slot.worktreePath });
  const dirty = await deps.worktrees.isDirty(worktree);
  const repository = await deps.store.getRepository(slot.repositoryId);
  const globs = repository?.copyFiles ?? [];
  const extras = globs.length > 0 ? await ignoredAmong(deps.git, worktree, await expandGlobs(slot.worktreePath, globs)) : [];
  if (!dirty && !(await anyEdited(slot.worktreePath, slot.repoPath, extras))) return null;
  const message = `grove: uncommitted work of ${job.taskId} (${slot.branchSlug || "default"}) before ${job.trigger}`;
  const commit = await saveWorkToRef(deps.git, worktree, ref, message, extras);
  deps.log.info({ jobId: job.id, ref, commit, extras }, "cleanup: uncommitted work saved (LC-8)");
  return commit;
}

const COPY_FILE_BYTES = 64 * 1024 * 1024;

/** True when one of `paths` differs from (or is missing in) the source checkout. */
async function anyEdited(worktreePath: string, sourcePath: string, paths: readonly string[]): Promise<boolean> {
  for (const rel of paths) {
    // Plain files only (plain-file.ts); anything else, or a file past the bound, counts as edited: its work is saved.
    const [mine, source] = await Promise.all([readPlainFile(join(worktreePath, rel), COPY_FILE_BYTES), readPlainFile(join(sourcePath, rel), COPY_FILE_BYTES)]);
    if (mine === null || source === null || !mine.equals(source)) return true;
  }
  return false;
}

/**
 * LC-8 on unarchive: after a tombstoned slot's worktree was recreated on its branch, the work
 * saved on the private ref is put back as uncommitted changes. Never throws: a restore that
 * fails keeps the ref (nothing is lost) and is reported on the launching session.
 */
export async function restoreArchivedWork(
  deps: Pick<Deps, "store" | "git" | "worktrees" | "bus" | "log" | "now">,
  taskId: string,
  row: EnvironmentRepoRecord,
  repoPath: string,
  ctx?: RefreshContext,
): Promise<void> {
  if (row.status !== "deleted" || !row.worktreePath) return;
  await restoreSavedWork(deps, { taskId, branchSlug: row.branchSlug, worktreePath: row.worktreePath, repoPath }, ctx);
}

/** What a restore needs to know about one slot. */
export interface SavedWorkSlot {
  taskId: string;
  branchSlug: string;
  worktreePath: string;
  repoPath: string;
}

/**
 * LC-8 restore of one slot (after unarchive, and after an environment reset when the kept
 * branch was checked out again). The newest save comes back as uncommitted changes; only then
 * is the ref dropped — or, when the save carries an earlier, never-restored save (its second
 * parent), moved back to that one, both compare-and-set. Failures are reported, never thrown.
 */
export async function restoreSavedWork(
  deps: Pick<Deps, "store" | "git" | "worktrees" | "bus" | "log" | "now">,
  slot: SavedWorkSlot,
  ctx?: RefreshContext,
): Promise<void> {
  const ref = archivedWorkRef(slot.taskId, slot.branchSlug);
  const log = { taskId: slot.taskId, ref, worktreePath: slot.worktreePath };
  const commit = await readRef(deps.git, slot.repoPath, ref).catch(() => null);
  if (commit === null) return;
  try {
    const worktree = await deps.worktrees.pin({ repoPath: slot.repoPath, worktreePath: slot.worktreePath });
    const { staged } = await restoreWorkFromRef(deps.git, worktree, commit);
    if (staged === "left_unstaged") {
      await report(
        deps,
        ctx,
        `Uncommitted work saved when this task was archived or reset was restored into ${slot.worktreePath}, but what was staged could not be staged again (the branch moved on); all of it is unstaged now.`,
        { ref, commit, kind: "saved_work_staged_lost" },
      );
    }
  } catch (e) {
    deps.log.warn({ err: e, ...log }, "could not restore saved work; it stays on the private ref");
    const why = e instanceof Error ? e.message.split("\n")[0] : String(e);
    await report(
      deps,
      ctx,
      `Uncommitted work saved when this task was archived or reset could not be restored into ${slot.worktreePath} (${why}). It is kept on ${ref} (${commit}); apply it by hand with \`git diff ${commit}^1 ${commit} | git apply --3way\`.`,
      { ref, commit, kind: "saved_work_restore_failed" },
    );
    return;
  }
  try {
    const { earlier } = await savedParents(deps.git, slot.repoPath, commit);
    if (earlier === null) {
      await deleteRef(deps.git, slot.repoPath, ref, commit);
    } else {
      await moveRef(deps.git, slot.repoPath, ref, earlier, commit);
      await report(
        deps,
        ctx,
        `Uncommitted work saved when this task was archived or reset was restored. Earlier saved work that could not be restored before is still kept on ${ref} (${earlier}).`,
        { ref, commit: earlier, kind: "saved_work_earlier_kept" },
      );
    }
    deps.log.info(log, "saved uncommitted work restored (LC-8)");
  } catch (e) {
    // The work is back; a ref that moved meanwhile stays as it is (it only keeps more).
    deps.log.warn({ err: e, ...log }, "saved work restored but its ref could not be updated");
  }
}

function report(
  deps: Pick<Deps, "store" | "bus" | "log" | "now">,
  ctx: RefreshContext | undefined,
  text: string,
  data: Record<string, unknown>,
): Promise<void> {
  return warnOnSession(deps, ctx, text, data, "saved-work message");
}

/**
 * After an environment reset (LC-2), the task's branch of a slot was kept (LC-7) and the
 * environment is gone: the next materialization checks that branch out again instead of
 * failing with `branch_exists`. Only a branch recorded by this task's own succeeded reset job
 * qualifies (WT-2: nothing else is ever silently reused).
 */
export async function branchKeptByReset(
  deps: Pick<Deps, "store" | "git">,
  taskId: string,
  repositoryId: string,
  branchSlug: string,
  repoPath: string,
): Promise<string | null> {
  const jobs = await deps.store.listCleanupJobs(taskId);
  for (const job of [...jobs].reverse()) {
    if (job.trigger !== "environment_reset" || job.state !== "succeeded" || !job.snapshot) continue;
    const slot = job.snapshot.slots.find((s) => s.repositoryId === repositoryId && s.branchSlug === branchSlug);
    if (slot && (await branchExists(deps.git, repoPath, slot.worktreeBranch))) return slot.worktreeBranch;
  }
  return null;
}
