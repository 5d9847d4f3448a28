import type { MergeBody, MergeResult } from "@grove/protocol";
import { AppError } from "../../domain/errors.js";
import { taskView } from "../../domain/views.js";
import { advanceCheckout, changedPaths, checkoutState, commitTree, mergeTree, moveRef, treeOf } from "../../git/merge-tree.js";
import { isAncestor } from "../../git/rebase.js";
import { resolveCommit } from "../../git/repository.js";
import type { GitCwd } from "../../git/worktree-link.js";
import { personIdentityEnv } from "../../git/identity.js";
import { tamperedError } from "../../git/worktrees.js";
import { DEFAULT_TUNING } from "../../config.js";
import type { Deps } from "../context.js";
import { assertTaskWorkable } from "../lifecycle/lifecycle.js";
import { faultPoint } from "../fault-points.js";
import { isRemoteRepository } from "../refresh/refresh-remote.js";
import { notAttachedError, reviewSlots, scopeOf, type ReviewSlot } from "./review-slot.js";

type Result = MergeResult["results"][number];

/**
 * Test seam: runs after the merge commit is computed and before the base ref moves, so a test
 * can move the base in between and see the compare-and-set refuse. Never set in production.
 */
export const mergeTestHooks: { beforeBaseMove?: (info: { repositoryPath: string; baseRef: string }) => Promise<void> } = {};

/** Whether a merge moves the task to `done` (GROVE_REVIEW_DONE_ON_MERGE, default on). */
export function doneOnMerge(deps: Pick<Deps, "tuning">): boolean {
  return (deps.tuning ?? DEFAULT_TUNING).reviewDoneOnMerge;
}

/** The commit the base ref should point at, computed without touching any working tree. */
async function computeTarget(deps: Pick<Deps, "git" | "gitIdentity">, slot: ReviewSlot, base: string, head: string, body: MergeBody): Promise<string> {
  const cwd = slot.repository.path;
  const strategy = body.strategy ?? "merge";
  if (strategy === "fast_forward") {
    if (!(await isAncestor(deps.git, cwd, base, head))) {
      throw new AppError(
        "merge_not_fast_forward",
        `${slot.attachment.baseBranch} of ${slot.repository.name} has commits the task branch lacks; update from base first`,
        scopeOf(slot),
      );
    }
    return head;
  }
  if (await isAncestor(deps.git, cwd, head, base)) return base;
  let tree: string;
  try {
    tree = await mergeTree(deps.git, cwd, base, head);
  } catch (e) {
    if (e instanceof AppError && e.code === "merge_conflict")
      throw new AppError("merge_conflict", `${slot.repository.name}: ${e.message}`, { ...e.details, ...scopeOf(slot) });
    throw e;
  }
  // The base already holds every change of the branch (a squash merged before, say): a commit
  // that changes nothing would only clutter the base; the merge is "nothing to merge".
  if (tree === (await treeOf(deps.git, cwd, base))) return base;
  const identity = await personIdentityEnv(deps.git, cwd, deps.gitIdentity);
  const message =
    body.message ?? (strategy === "squash" ? `${slot.task.title} (squashed from ${slot.branch})` : `Merge branch '${slot.branch}': ${slot.task.title}`);
  return commitTree(deps.git, cwd, tree, strategy === "squash" ? [base] : [base, head], message, identity);
}

/**
 * SBX-4: where git runs in the checkout holding the base branch: the person's main checkout as
 * it is; a linked worktree (another task's, say) pinned to its recorded git dir, or refused as
 * `workspace_tampered`.
 */
async function checkoutCwd(deps: Pick<Deps, "worktrees">, repoPath: string, path: string): Promise<GitCwd> {
  const link = await deps.worktrees.link({ repoPath, worktreePath: path });
  if (link.state === "ok") return link.pin;
  if (link.state === "tampered") throw tamperedError(path, link.message);
  return path;
}

/**
 * RV-4.3: brings the base checkout to the moved ref. The checkout can change between the dirty
 * check and this step (the person saves a file the merge writes, or holds the index lock);
 * `read-tree` then refuses and leaves index and files as they were. The ref is moved back by
 * compare-and-set, so the checkout never sits behind its own branch (a commit made there would
 * silently revert the merge): `409 base_checkout_dirty`, nothing moved. Should the ref have moved
 * on meanwhile, it is left where another writer put it and the error says so.
 */
async function advanceOrUndo(
  deps: Pick<Deps, "git">,
  slot: ReviewSlot,
  checkout: { path: string; cwd: GitCwd },
  move: { baseRef: string; base: string; target: string },
): Promise<void> {
  const baseBranch = slot.attachment.baseBranch;
  try {
    await advanceCheckout(deps.git, checkout.cwd, move.base, move.target);
  } catch (e) {
    if (!(e instanceof AppError) || e.code !== "git_failed") throw e;
    const undone = await moveRef(deps.git, slot.repository.path, move.baseRef, move.base, move.target, `grove: undo merge of ${slot.branch}, checkout changed`);
    const details = { ...scopeOf(slot), checkout: checkout.path, git: e.message, ...(!undone && { baseMovedOn: true }) };
    throw new AppError(
      "base_checkout_dirty",
      undone
        ? `${baseBranch} is checked out at ${checkout.path}, which changed during the merge (${e.message}); commit or stash there and retry, nothing moved`
        : `${baseBranch} is checked out at ${checkout.path}, which changed during the merge (${e.message}), and ${baseBranch} has moved on since; run git status there before committing`,
      details,
    );
  }
}

/**
 * One repository (docs/specs/review.md "Merge"): compute, check the checkout that has the base
 * branch (dirty → 409, nothing moved), move the base ref by compare-and-set, then bring that
 * checkout to the new commit.
 */
async function mergeSlot(deps: Pick<Deps, "git" | "worktrees" | "gitIdentity">, slot: ReviewSlot, body: MergeBody): Promise<Result> {
  const repo = slot.repository;
  const baseBranch = slot.attachment.baseBranch;
  const baseRef = `refs/heads/${baseBranch}`;
  const base = await resolveCommit(deps.git, repo.path, baseRef);
  if (base === null) throw new AppError("base_branch_not_found", `base branch ${baseBranch} does not exist in ${repo.name}`, scopeOf(slot));
  const head = await resolveCommit(deps.git, repo.path, `refs/heads/${slot.branch}`);
  if (head === null) throw new AppError("workspace_missing", `task branch ${slot.branch} does not exist in ${repo.name}`, scopeOf(slot));
  const target = await computeTarget(deps, slot, base, head, body);
  if (target === base) return { repositoryId: repo.id, repositoryName: repo.name, baseBranch, commit: base, upToDate: true };
  const listed = (await deps.worktrees.list(repo.path)).find((e) => e.branch === baseBranch);
  const checkout = listed ? { path: listed.path, cwd: await checkoutCwd(deps, repo.path, listed.path) } : undefined;
  if (checkout) {
    const state = await checkoutState(deps.git, checkout.cwd);
    const incoming = new Set(await changedPaths(deps.git, repo.path, base, target));
    const blocking = state.untracked.filter((p) => incoming.has(p));
    if (state.trackedDirty || blocking.length > 0) {
      throw new AppError(
        "base_checkout_dirty",
        `${baseBranch} is checked out at ${checkout.path} with uncommitted changes; commit or stash them, nothing moved`,
        { ...scopeOf(slot), checkout: checkout.path, ...(blocking.length > 0 && { untracked: blocking }) },
      );
    }
  }
  await faultPoint("merge.after_compute");
  await mergeTestHooks.beforeBaseMove?.({ repositoryPath: repo.path, baseRef });
  if (!(await moveRef(deps.git, repo.path, baseRef, target, base, `grove: ${body.strategy ?? "merge"} ${slot.branch}`))) {
    throw new AppError("base_moved", `${baseBranch} of ${repo.name} moved while the merge was computed; nothing was changed, try again`, {
      ...scopeOf(slot),
      expected: base,
    });
  }
  await faultPoint("merge.after_ref_update");
  if (checkout) await advanceOrUndo(deps, slot, checkout, { baseRef, base, target });
  return { repositoryId: repo.id, repositoryName: repo.name, baseBranch, commit: target };
}

/** The ports (orchestrator/context.ts) mergeTask uses. */
export type MergeTaskPorts = Pick<Deps, "store" | "git" | "worktrees" | "bus" | "log" | "home" | "now" | "remote" | "gitIdentity" | "tuning">;

/** `POST /tasks/:id/merge`: local repositories only (a remote repository lands through a pull request). */
export async function mergeTask(deps: MergeTaskPorts, taskId: string, body: MergeBody): Promise<MergeResult> {
  await assertTaskWorkable(deps, taskId);
  const slots = await reviewSlots(deps, taskId, body.repositoryId, notAttachedError());
  for (const slot of slots) {
    if (isRemoteRepository(slot.repository)) {
      throw new AppError("invalid_request", `${slot.repository.name} is a ${slot.repository.provider} repository: open a pull request instead`, {
        field: "repositoryId",
        ...scopeOf(slot),
      });
    }
  }
  // The merge lands commits only: work left uncommitted in the task's worktree would silently
  // stay behind. Checked for every repository before any base moves, so nothing lands partly.
  if (!body.leaveUncommitted) {
    for (const slot of slots) {
      const state = await checkoutState(deps.git, slot.worktree);
      if (state.trackedDirty || state.untracked.length > 0) {
        throw new AppError(
          "uncommitted_changes",
          `${slot.repository.name} has uncommitted changes in the task's worktree that a merge would leave out; commit them first (or merge without them)`,
          {
            ...scopeOf(slot),
            fix: `grove task commit ${slot.task.id} -m "<message>", or grove task merge ${slot.task.id} --leave-uncommitted`,
          },
        );
      }
    }
  }
  const results: Result[] = [];
  for (const slot of slots) {
    results.push(await deps.git.withRepoLock(slot.repository.path, () => mergeSlot(deps, slot, body)));
    deps.bus.publish("changes.updated", { taskId, repositoryId: slot.repository.id });
  }
  deps.log.info({ taskId, results }, "merged into base");
  if (doneOnMerge(deps)) {
    const task = await deps.store.getTask(taskId);
    // Compare-and-set from the state read; a task is never archived here.
    const done = task && task.state !== "done" ? await deps.store.setTaskStateIf(taskId, task.state, "done", deps.now()) : undefined;
    if (done) deps.bus.publish("task.updated", { task: taskView(done) });
  }
  return { results };
}
