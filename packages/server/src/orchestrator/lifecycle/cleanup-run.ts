import { existsSync } from "node:fs";
import { readdir, rm, rmdir } from "node:fs/promises";
import { join } from "node:path";
import type { CleanupJobRecord, CleanupSlot } from "../../domain/cleanup-job.js";
import { AppError } from "../../domain/errors.js";
import { archivedWorkRef, deleteRef, readRef } from "../../git/archive-ref.js";
import { deleteMergedBranch } from "../../git/branches.js";
import { removeWorktreeForCleanup } from "../../git/worktree-cleanup.js";
import { stopTaskAgents } from "./cleanup-agents.js";
import { saveSlotWork } from "../worktrees/saved-work.js";
import type { Deps } from "../context.js";
import { TASK_MARKER } from "../worktrees/paths.js";

/** The ports (orchestrator/context.ts) executeCleanup uses. */
export type ExecuteCleanupPorts = Pick<Deps, "store" | "git" | "worktrees" | "agents" | "bus" | "log" | "launches" | "now">;

/**
 * One attempt of a claimed job (FLOWS "Archive" step 4, LC-3): stop every agent of the task,
 * then per slot save uncommitted work (LC-8), remove the worktree the task owns (an
 * already-missing one is fine, LC-7), keep or delete its branch (LC-7), tombstone the row
 * (ENV-4). Each step is idempotent, so a retry or a restart after a crash simply runs the
 * attempt again. Any throw leaves the rest for the next attempt.
 */
export async function executeCleanup(deps: ExecuteCleanupPorts, job: CleanupJobRecord): Promise<void> {
  const snap = job.snapshot;
  if (!snap) throw new AppError("internal_error", `cleanup job ${job.id} has no inventory`);
  if (job.trigger === "purge") return purgeTask(deps, job);
  await stopTaskAgents(deps, snap);
  // Slots run concurrently: different repositories proceed in parallel, one repository's
  // mutations are serialized by its lock (WT-6), and the git process cap still applies.
  const results = await Promise.allSettled(snap.slots.map((slot) => cleanupSlot(deps, job, slot)));
  const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failed) throw failed.reason;
  if (job.trigger === "environment_reset" && snap.environmentId) {
    // The environment and its rows go; sessions stay, unlinked (their conversations are kept).
    await deps.store.deleteEnvironment(snap.environmentId);
    deps.bus.publish("environment.updated", { taskId: job.taskId, environmentId: snap.environmentId, status: "deleted" });
  }
}

/**
 * LIVE-5: the end of a task's stay in the trash. Per slot: what is left of its worktree goes,
 * the saved work ref goes (the delete had consent for dirty work, LC-6, and the retention is
 * over), a branch Grove created with nothing outside its base goes (LC-7: never one with unique
 * commits, never the person's); then the task row (sessions, transcripts and environment
 * cascade) and its directory. Each step is idempotent; the row goes last, so a retry finds it.
 */
async function purgeTask(deps: Pick<Deps, "store" | "git" | "worktrees">, job: CleanupJobRecord): Promise<void> {
  const snap = job.snapshot!;
  const { git } = deps;
  for (const slot of snap.slots) {
    if (existsSync(slot.worktreePath)) {
      const owned = await deps.worktrees.validate({ repoPath: slot.repoPath, worktreePath: slot.worktreePath, branch: slot.worktreeBranch });
      if (owned.ok) await removeWorktreeForCleanup(git, slot.repoPath, slot.worktreePath);
    }
    const ref = archivedWorkRef(job.taskId, slot.branchSlug);
    const saved = await readRef(git, slot.repoPath, ref);
    if (saved !== null) await deleteRef(git, slot.repoPath, ref, saved);
    if (slot.branchCreatedByGrove === true) await deleteMergedBranch(git, slot.repoPath, slot.worktreeBranch, slot.baseBranch);
  }
  await deps.store.deleteTask(job.taskId);
  await removeTaskDirectory(snap.taskRoot);
}

async function cleanupSlot(deps: Pick<Deps, "store" | "git" | "worktrees" | "log" | "now">, job: CleanupJobRecord, slot: CleanupSlot): Promise<void> {
  const { git } = deps;
  const ref = archivedWorkRef(job.taskId, slot.branchSlug);
  if (existsSync(slot.worktreePath)) {
    const owned = await deps.worktrees.validate({ repoPath: slot.repoPath, worktreePath: slot.worktreePath, branch: slot.worktreeBranch });
    if (!owned.ok && (owned.reason === "not_a_worktree" || owned.reason === "wrong_repository" || owned.reason === "not_a_directory")) {
      // Not provably ours (LC-3): never deleted. `grove doctor` reports it.
      deps.log.warn({ jobId: job.id, path: slot.worktreePath, reason: owned.reason }, "cleanup: the recorded path is not the task's worktree; left untouched");
    } else {
      if (!owned.ok && owned.reason === "tampered") {
        // SBX-4: the person asked for this cleanup; the redirected link is written back to the
        // recorded git dir so the save below and git's own removal act on the task's worktree.
        await deps.worktrees.repairLink({ repoPath: slot.repoPath, worktreePath: slot.worktreePath });
        deps.log.warn({ jobId: job.id, path: slot.worktreePath }, "cleanup: a redirected .git link was written back before removal (SBX-4)");
      }
      // LIVE-5: a delete saves the work too (the trash keeps it restorable); the purge drops it.
      await saveSlotWork(deps, job, slot, ref);
      await removeWorktreeForCleanup(git, slot.repoPath, slot.worktreePath);
    }
  } else {
    await removeWorktreeForCleanup(git, slot.repoPath, slot.worktreePath);
  }
  // LC-7 / LIVE-5: archive, reset and delete keep every branch (unarchive, restore from the
  // trash and the next session need it); only the purge drops a merged branch Grove created.
  if (!slot.tombstoned) await deps.store.tombstoneEnvironmentRepo(slot.rowId, deps.now());
}

/** After a delete: the marker goes, and the task directory if nothing else is left in it. */
async function removeTaskDirectory(root: string): Promise<void> {
  if (!existsSync(root)) return;
  const entries = await readdir(root);
  if (entries.some((e) => e !== TASK_MARKER)) return;
  await rm(join(root, TASK_MARKER), { force: true });
  await rmdir(root).catch(() => undefined);
}
