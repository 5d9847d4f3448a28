import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { AppError, isAppError } from "../../domain/errors.js";
import type { SlotResult } from "../../domain/environment-merge.js";
import { newId } from "../../domain/ids.js";
import { creationTitleSlug, renderBranchName, slotDirName, slotSlug } from "../../domain/layout.js";
import type { EnvironmentRecord, EnvironmentRepoRecord, TaskRecord } from "../../domain/records.js";
import { branchExists } from "../../git/repository.js";
import type { Deps } from "../context.js";
import { isAdoptable } from "./adopt.js";
import { faultPoint } from "../fault-points.js";
import { branchKeptByReset, restoreArchivedWork, restoreSavedWork } from "./saved-work.js";
import { TASK_MARKER, taskRoot } from "./paths.js";
import { prepareStartPoint } from "../refresh/refresh.js";
import type { PlannedSlot, RefreshContext } from "../planned-slot.js";
import { assertRemoteRoutes, refreshBeforeRecreate } from "../refresh/refresh-remote.js";
import { setupNewWorktree } from "./worktree-setup.js";
import { ensureRepositoryOnThisRunner, getRepositoryOnThisRunner } from "../refresh/repository-on-runner.js";

/** WT-1 / WT-2: where each attachment's worktree goes and which branch it is on. */
export async function planSlots(deps: Pick<Deps, "store" | "home" | "remote">, task: TaskRecord): Promise<PlannedSlot[]> {
  const root = taskRoot(deps, task);
  const seenRepos = new Set<string>();
  const out: PlannedSlot[] = [];
  for (const att of task.repositories) {
    const repository = await getRepositoryOnThisRunner(deps, att.repositoryId);
    if (!repository) throw new AppError("not_found", `repository ${att.repositoryId} not found`, { repositoryId: att.repositoryId });
    const branchSlug = slotSlug(att);
    const first = !seenRepos.has(repository.id);
    seenRepos.add(repository.id);
    const suffix =
      task.id
        .replace(/^task_/, "")
        .slice(0, 6)
        .toLowerCase() + (first ? "" : `-${branchSlug}`);
    const branch = att.checkoutBranch ?? renderBranchName(repository.branchTemplate, { title: creationTitleSlug(task.dirName), taskId: task.id, suffix });
    out.push({ attachment: att, repository, branchSlug, worktreePath: join(root, slotDirName(repository.name, branchSlug, first)), branch });
  }
  return out;
}

/** The launch error of one slot: typed, naming the repository (WT-8, RR-7). */
export class SlotError extends AppError {
  constructor(
    cause: unknown,
    readonly repositoryId: string,
    scope?: RefreshContext,
  ) {
    const base = isAppError(cause) ? cause : new AppError("git_failed", cause instanceof Error ? cause.message : String(cause));
    const ids = scope ? { taskId: scope.taskId, ...(scope.sessionId ? { sessionId: scope.sessionId } : {}) } : {};
    super(base.code, base.message, { ...(base.details ?? {}), ...ids, repositoryId });
  }
}

interface Created {
  slot: PlannedSlot;
  createdBranch: boolean;
  rowId?: string;
}

/** The ports (orchestrator/context.ts) materializeSlots uses. */
export type MaterializeSlotsPorts = Pick<Deps, "store" | "git" | "worktrees" | "bus" | "log" | "home" | "runnerId" | "now" | "remote" | "tuning" | "pool">;

/**
 * FLOWS "Launch" step 2: for each slot in order, reuse a valid worktree, recreate a vanished
 * one on its recorded branch (WT-5), or create a new one; persist each slot's concrete tuple
 * right after its creation (ENV-2), undoing exactly that creation if persisting is refused
 * (WT-7). A failure in any slot undoes every worktree this attempt created (WT-8).
 */
export async function materializeSlots(
  deps: MaterializeSlotsPorts,
  task: TaskRecord,
  env: EnvironmentRecord,
  ctx: RefreshContext,
): Promise<EnvironmentRepoRecord[]> {
  const slots = await planSlots(deps, task);
  // RR-4: every slot's refresh route is decided before the first worktree is touched.
  await assertRemoteRoutes(deps, slots, ctx);
  const root = taskRoot(deps, task);
  await mkdir(root, { recursive: true, mode: 0o700 });
  await writeFile(join(root, TASK_MARKER), JSON.stringify({ taskId: task.id, environmentId: env.id, runnerId: deps.runnerId }, null, 2) + "\n", {
    mode: 0o600,
  });
  const created: Created[] = [];
  try {
    let rows = await deps.store.listEnvironmentRepos(env.id);
    for (const slot of slots) {
      try {
        // A remote repository's first use on this runner clones it into this runner's home.
        await ensureRepositoryOnThisRunner(deps, slot.repository, ctx);
        rows = await materializeOne(deps, env, slot, rows, created, ctx);
      } catch (e) {
        throw new SlotError(e, slot.repository.id, ctx);
      }
    }
    return rows;
  } catch (e) {
    await rollback(deps, env, created);
    throw e;
  }
}

/** The ports (orchestrator/context.ts) materializeOne uses. */
export type MaterializeOnePorts = Pick<Deps, "store" | "git" | "worktrees" | "bus" | "log" | "home" | "now" | "remote" | "tuning" | "pool">;

async function materializeOne(
  deps: MaterializeOnePorts,
  env: EnvironmentRecord,
  slot: PlannedSlot,
  rows: EnvironmentRepoRecord[],
  created: Created[],
  ctx: RefreshContext,
): Promise<EnvironmentRepoRecord[]> {
  const { repository: repo, attachment: att } = slot;
  const known = rows.find((r) => r.repositoryId === repo.id && r.branchSlug === slot.branchSlug && r.worktreeId && r.worktreePath && r.worktreeBranch);
  const result: SlotResult = { repositoryId: repo.id, branchSlug: slot.branchSlug, baseBranch: att.baseBranch, position: att.position, errorMessage: null };
  if (known?.worktreeId && known.worktreePath && known.worktreeBranch) {
    // A row from an earlier attempt or an archived environment: reuse or recreate in place (WT-5).
    await refreshBeforeRecreate(deps, repo, { worktreePath: known.worktreePath, branch: known.worktreeBranch, baseBranch: att.baseBranch }, ctx);
    await deps.worktrees.recreate({ repoPath: repo.path, worktreePath: known.worktreePath, branch: known.worktreeBranch, sparse: repo.sparseCheckout ?? [] });
    // LC-8: a slot archived with uncommitted work gets it back (no-op for live rows).
    await restoreArchivedWork(deps, env.taskId, known, repo.path, ctx);
    result.worktree = { worktreeId: known.worktreeId, worktreePath: known.worktreePath, worktreeBranch: known.worktreeBranch };
    return deps.store.mergeEnvironmentRepos(env.id, [result], deps.now());
  }
  // After an environment reset the task's own branch was kept (LC-7): check it out again.
  const kept = await branchKeptByReset(deps, env.taskId, repo.id, slot.branchSlug, repo.path);
  if (kept !== null) slot = { ...slot, branch: kept };
  if (await isAdoptable(deps, env.taskId, dirname(slot.worktreePath), slot)) {
    deps.log.warn({ taskId: env.taskId, worktreePath: slot.worktreePath }, "adopting a worktree left by an interrupted launch");
    // WT-11: a sparse add interrupted before its checkout has an empty index: finish it first.
    if (repo.sparseCheckout?.length) await deps.worktrees.checkoutSparse({ repoPath: repo.path, worktreePath: slot.worktreePath, sparse: repo.sparseCheckout });
    result.worktree = { worktreeId: newId("wt"), worktreePath: slot.worktreePath, worktreeBranch: slot.branch };
    return deps.store.mergeEnvironmentRepos(env.id, [result], deps.now());
  }
  const startPoint = await prepareStartPoint(deps, slot, ctx);
  const existingBranch = kept !== null || (att.checkoutBranch !== null && (await branchExists(deps.git, repo.path, att.checkoutBranch)));
  // WT-10: a new branch may start from a pooled worktree moved to the refreshed start point.
  // Pooled worktrees are full checkouts: a sparse repository (WT-11) always adds its own.
  const sparse = repo.sparseCheckout ?? [];
  const pooled = existingBranch || sparse.length > 0 ? null : await claimPooled(deps, slot, startPoint, env.taskId);
  const { createdBranch } =
    pooled ??
    (await deps.worktrees.create({
      repoPath: repo.path,
      worktreePath: slot.worktreePath,
      branch: slot.branch,
      startPoint,
      newBranch: !existingBranch,
      noCheckout: sparse.length > 0,
    }));
  const entry: Created = { slot, createdBranch };
  created.push(entry);
  if (sparse.length > 0) {
    await faultPoint("launch.after_sparse_add");
    await deps.worktrees.checkoutSparse({ repoPath: repo.path, worktreePath: slot.worktreePath, sparse });
  }
  await faultPoint("launch.after_worktree_add");
  result.worktree = { worktreeId: newId("wt"), worktreePath: slot.worktreePath, worktreeBranch: slot.branch };
  const after = await deps.store.mergeEnvironmentRepos(env.id, [result], deps.now());
  entry.rowId = after.find((r) => r.worktreeId === result.worktree?.worktreeId)?.id;
  await setupNewWorktree(deps, slot, ctx);
  // LC-8: work saved by that reset comes back as uncommitted changes (after WT-9, so a saved
  // copy-files file wins over the fresh copy). Never throws: a failure is reported, ref kept.
  if (kept !== null)
    await restoreSavedWork(deps, { taskId: env.taskId, branchSlug: slot.branchSlug, worktreePath: slot.worktreePath, repoPath: repo.path }, ctx);
  return after;
}

/** WT-10: a pooled worktree for a new branch, or null (no pool, none ready); the pool is topped up either way. */
async function claimPooled(deps: Pick<Deps, "pool">, slot: PlannedSlot, startPoint: string, taskId: string): Promise<{ createdBranch: boolean } | null> {
  const pool = deps.pool;
  if (!pool?.enabled) return null;
  const { repository: repo, attachment: att } = slot;
  try {
    return await pool.claim({
      repoPath: repo.path,
      repositoryId: repo.id,
      baseBranch: att.baseBranch,
      taskId,
      worktreePath: slot.worktreePath,
      branch: slot.branch,
      startPoint,
    });
  } finally {
    pool.refill(repo.id, repo.path, att.baseBranch);
  }
}

/**
 * Undo exactly what this attempt created: its row, then directory, registration and new branch.
 * The row goes first: a crash (or a failing delete) in between leaves a worktree without a row,
 * which the next attempt adopts; the other order would leave a row whose branch is gone, and the
 * task could never launch again.
 */
async function rollback(deps: Pick<Deps, "store" | "worktrees" | "log">, env: EnvironmentRecord, created: Created[]): Promise<void> {
  for (const c of [...created].reverse()) {
    try {
      if (c.rowId) await deps.store.deleteEnvironmentRepo(c.rowId);
      await faultPoint("launch.rollback_after_row_delete");
      await deps.worktrees.undoCreate({
        repoPath: c.slot.repository.path,
        worktreePath: c.slot.worktreePath,
        branch: c.slot.branch,
        createdBranch: c.createdBranch,
      });
    } catch (e) {
      deps.log.error({ err: e, worktreePath: c.slot.worktreePath, environmentId: env.id }, "rollback of a new worktree failed; doctor will report it");
    }
  }
}
