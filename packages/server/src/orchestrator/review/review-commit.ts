import type { CommitBody, CommitResult } from "@grove/protocol";
import { AppError } from "../../domain/errors.js";
import { commitChanges } from "../../git/commit.js";
import { confinePath } from "../changes/changes.js";
import type { Deps } from "../context.js";
import { assertTaskWorkable } from "../lifecycle/lifecycle.js";
import { notAttachedError, reviewSlots, scopeOf } from "./review-slot.js";

/** The ports (orchestrator/context.ts) commitTask uses. */
export type CommitTaskPorts = Pick<Deps, "store" | "git" | "worktrees" | "bus" | "log" | "home" | "remote" | "gitIdentity">;

/**
 * `POST /tasks/:id/commit`: commits the uncommitted work of the task's worktrees (one
 * repository, or every one with changes) as the person, under each repository's lock. Only the
 * task branch moves. Listed paths apply to one repository, so they need `repositoryId` when the
 * task has several.
 */
export async function commitTask(deps: CommitTaskPorts, taskId: string, body: CommitBody): Promise<CommitResult> {
  await assertTaskWorkable(deps, taskId);
  const slots = await reviewSlots(deps, taskId, body.repositoryId, notAttachedError());
  if (body.paths && slots.length > 1)
    throw new AppError("invalid_request", "paths need repositoryId when the task has several repositories", { field: "repositoryId" });
  const results: CommitResult["results"] = [];
  for (const slot of slots) {
    const paths = body.paths ? await Promise.all(body.paths.map((p) => confinePath(slot.worktreePath, p))) : undefined;
    const commit = await deps.git.withRepoLock(slot.repository.path, async () => {
      try {
        return await commitChanges(deps.git, {
          cwd: slot.worktree,
          identity: deps.gitIdentity,
          message: body.message,
          ...(paths && { paths }),
          ...(body.noVerify && { noVerify: true }),
        });
      } catch (e) {
        if (e instanceof AppError) throw new AppError(e.code, `${slot.repository.name}: ${e.message}`, { ...e.details, ...scopeOf(slot) });
        throw e;
      }
    });
    if (commit === null) continue;
    results.push({ repositoryId: slot.repository.id, commit });
    deps.bus.publish("changes.updated", { taskId, repositoryId: slot.repository.id });
  }
  if (results.length === 0)
    throw new AppError("nothing_to_commit", `task ${taskId} has no uncommitted changes${body.paths ? " among the listed paths" : ""}`, {
      taskId,
      ...(body.repositoryId && { repositoryId: body.repositoryId }),
    });
  deps.log.info({ taskId, commits: results }, "review commit");
  return { results };
}
