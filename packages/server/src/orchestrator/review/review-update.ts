import type { UpdateFromBaseBody, UpdateResult, UpdateStepBody } from "@grove/protocol";
import { AppError } from "../../domain/errors.js";
import { hasUncommitted } from "../../git/commit.js";
import { headCommit } from "../../git/file-lines.js";
import { personIdentityEnv } from "../../git/identity.js";
import {
  abortIntegration,
  backupRefs,
  conflictedPaths,
  continueIntegration,
  createBackupRef,
  integrateBase,
  isAncestor,
  operationInProgress,
  unresolvedPaths,
} from "../../git/rebase.js";
import type { Deps } from "../context.js";
import { assertTaskWorkable } from "../lifecycle/lifecycle.js";
import { faultPoint } from "../fault-points.js";
import { refreshedBase } from "./review-base.js";
import { resolveTaskRefreshRoutes } from "../refresh/refresh-routes.js";
import { notAttachedError, reviewSlot, reviewSlots, scopeOf, type ReviewSlot } from "./review-slot.js";

type Result = UpdateResult["results"][number];

/**
 * One repository's update from base, under its repository lock. Order (docs/specs/review.md):
 * refuse a stopped operation or (without autostash) uncommitted work; refresh the base through
 * the route; write the backup ref; only then rebase/merge. On conflicts: abort and verify the
 * branch is back (`409 merge_conflict`), or keep them for the person or the agent.
 */
async function updateSlot(
  deps: Pick<Deps, "store" | "git" | "log" | "home" | "remote" | "gitIdentity">,
  slot: ReviewSlot,
  body: UpdateFromBaseBody,
): Promise<Result> {
  const cwd = slot.worktree;
  const scope = scopeOf(slot);
  // The person's identity for the commits a rebase rewrites or a merge makes, before anything moves.
  const identity = await personIdentityEnv(deps.git, cwd, deps.gitIdentity).catch((e: unknown) => {
    throw e instanceof AppError ? new AppError(e.code, `${slot.repository.name}: ${e.message}`, { ...e.details, ...scope }) : e;
  });
  const stopped = await operationInProgress(deps.git, cwd);
  if (stopped)
    throw new AppError("update_in_progress", `a ${stopped} is stopped in the worktree of ${slot.repository.name}; continue or abort it first`, {
      ...scope,
      operation: stopped,
    });
  if (!body.autostash && (await hasUncommitted(deps.git, cwd))) {
    throw new AppError("dirty_worktree", `the worktree of ${slot.repository.name} has uncommitted changes; commit them or pass autostash`, scope);
  }
  const base = await refreshedBase(deps, slot);
  const head = await headCommit(deps.git, cwd);
  const backupRef = await createBackupRef(deps.git, cwd, slot.task.id, head);
  await faultPoint("update.after_backup");
  if (await isAncestor(deps.git, cwd, base, head)) return { repositoryId: slot.repository.id, outcome: "up_to_date", backupRef, commit: head };
  const { stopped: conflicted } = await integrateBase(deps.git, cwd, base, { mode: body.mode ?? "rebase", autostash: body.autostash ?? false, env: identity });
  if (!conflicted) return { repositoryId: slot.repository.id, outcome: "updated", backupRef, commit: await headCommit(deps.git, cwd) };
  const conflicts = await conflictedPaths(deps.git, cwd);
  await faultPoint("update.after_conflict");
  if (body.keepConflicts) return { repositoryId: slot.repository.id, outcome: "conflicts", conflicts, backupRef, commit: head };
  await abortIntegration(deps.git, cwd, body.mode ?? "rebase");
  const back = await headCommit(deps.git, cwd);
  if (back !== head)
    throw new AppError("internal_error", `abort left ${slot.repository.name} at ${back}, not ${head}; the branch is saved at ${backupRef}`, {
      ...scope,
      backupRef,
    });
  throw new AppError("merge_conflict", `updating ${slot.repository.name} from its base stops on conflicts in ${conflicts.join(", ")}; nothing changed`, {
    ...scope,
    conflicts,
    backupRef,
  });
}

/** The ports (orchestrator/context.ts) updateFromBase uses. */
export type UpdateFromBasePorts = Pick<Deps, "store" | "git" | "worktrees" | "bus" | "log" | "home" | "remote" | "gitIdentity">;

/** `POST /tasks/:id/update-from-base`: each repository in turn (one, or all of the task's). */
export async function updateFromBase(deps: UpdateFromBasePorts, taskId: string, body: UpdateFromBaseBody): Promise<UpdateResult> {
  await assertTaskWorkable(deps, taskId);
  const slots = await reviewSlots(deps, taskId, body.repositoryId, notAttachedError());
  // RR-4 / seed 004: every repository's route is resolved (credentials opened) before the first
  // refresh, so a failing second route leaves the first repository untouched.
  await resolveTaskRefreshRoutes(
    deps,
    slots.map((s) => ({ repository: s.repository })),
    { taskId },
  );
  const results: Result[] = [];
  for (const slot of slots) {
    const r = await deps.git.withRepoLock(slot.repository.path, () => updateSlot(deps, slot, body));
    results.push(r);
    deps.bus.publish("changes.updated", { taskId, repositoryId: slot.repository.id });
  }
  deps.log.info({ taskId, results }, "update from base");
  return { results };
}

async function stoppedSlot(
  deps: Pick<Deps, "store" | "git" | "worktrees" | "home" | "remote">,
  taskId: string,
  body: UpdateStepBody,
): Promise<{ slot: ReviewSlot; kind: "rebase" | "merge"; backupRef: string }> {
  await assertTaskWorkable(deps, taskId);
  const slot = await reviewSlot(deps, taskId, body.repositoryId, notAttachedError());
  const kind = await operationInProgress(deps.git, slot.worktree);
  if (!kind) throw new AppError("update_not_in_progress", `no rebase or merge is stopped in the worktree of ${slot.repository.name}`, scopeOf(slot));
  const backupRef = (await backupRefs(deps.git, slot.worktree, taskId)).pop() ?? "";
  return { slot, kind, backupRef };
}

/** The ports (orchestrator/context.ts) continueUpdate uses. */
export type ContinueUpdatePorts = Pick<Deps, "store" | "git" | "worktrees" | "bus" | "home" | "remote" | "gitIdentity">;

/** `…/update-from-base/continue`: after the conflicts were resolved in the files, finish the rebase/merge. */
export async function continueUpdate(deps: ContinueUpdatePorts, taskId: string, body: UpdateStepBody): Promise<UpdateResult> {
  const { slot, kind, backupRef } = await stoppedSlot(deps, taskId, body);
  const result = await deps.git.withRepoLock(slot.repository.path, async (): Promise<Result> => {
    const cwd = slot.worktree;
    const conflicts = await conflictedPaths(deps.git, cwd);
    const unresolved = await unresolvedPaths(cwd, conflicts);
    if (unresolved.length > 0)
      throw new AppError("conflicts_unresolved", `${unresolved.join(", ")} still hold conflict markers`, { ...scopeOf(slot), conflicts: unresolved });
    const identity = await personIdentityEnv(deps.git, cwd, deps.gitIdentity);
    const { stopped } = await continueIntegration(deps.git, cwd, kind, conflicts, identity);
    if (stopped) return { repositoryId: slot.repository.id, outcome: "conflicts", conflicts: await conflictedPaths(deps.git, cwd), backupRef };
    return { repositoryId: slot.repository.id, outcome: "updated", backupRef, commit: await headCommit(deps.git, cwd) };
  });
  deps.bus.publish("changes.updated", { taskId, repositoryId: slot.repository.id });
  return { results: [result] };
}

/** `…/update-from-base/abort`: undo the stopped rebase/merge; the branch is back where the backup ref says. */
export async function abortUpdate(
  deps: Pick<Deps, "store" | "git" | "worktrees" | "bus" | "home" | "remote">,
  taskId: string,
  body: UpdateStepBody,
): Promise<UpdateResult> {
  const { slot, kind, backupRef } = await stoppedSlot(deps, taskId, body);
  await deps.git.withRepoLock(slot.repository.path, () => abortIntegration(deps.git, slot.worktree, kind));
  deps.bus.publish("changes.updated", { taskId, repositoryId: slot.repository.id });
  return { results: [{ repositoryId: slot.repository.id, outcome: "aborted", backupRef, commit: await headCommit(deps.git, slot.worktree) }] };
}
