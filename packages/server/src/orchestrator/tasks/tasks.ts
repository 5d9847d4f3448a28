import type { CreateTaskBody, PatchTaskBody } from "@grove/protocol";
import { AppError } from "../../domain/errors.js";
import { newId } from "../../domain/ids.js";
import { assertBranchName, slotSlug, taskDirName } from "../../domain/layout.js";
import type { TaskRecord, TaskRepositoryRecord } from "../../domain/records.js";
import { deriveTaskState } from "../../domain/session-state.js";
import { effectiveSessionState } from "../../domain/turn-outcome.js";
import { taskView } from "../../domain/views.js";
import { branchExists } from "../../git/repository.js";
import type { Deps } from "../context.js";
import { isRemoteRepository } from "../refresh/refresh-remote.js";
import { remoteBranchExists } from "../../git/remote-sync.js";
import { readablePathOnThisRunner } from "../refresh/repository-on-runner.js";
import { boardDerivesState } from "./task-workflow.js";

/** Creates a task with its ordered repository attachments (WT-8). Validates everything first. */
export async function createTask(
  deps: Pick<Deps, "store" | "git" | "bus" | "home" | "now" | "remote">,
  body: CreateTaskBody,
  parentId?: string,
  opts: { id?: string; state?: TaskRecord["state"] } = {},
): Promise<TaskRecord> {
  const attachments: TaskRepositoryRecord[] = [];
  const slots = new Set<string>();
  for (const [position, input] of body.repositories.entries()) {
    const repo = await deps.store.getRepository(input.repositoryId);
    if (!repo) throw new AppError("invalid_request", `repository ${input.repositoryId} not found`, { field: `repositories.${position}.repositoryId` });
    const baseBranch = input.baseBranch ?? repo.defaultBranch;
    assertBranchName(baseBranch, `repositories.${position}.baseBranch`);
    if (input.checkoutBranch !== undefined) assertBranchName(input.checkoutBranch, `repositories.${position}.checkoutBranch`);
    // RR-6: a pull-request head is fetched from a provider; a local checkout has none.
    if (input.prNumber !== undefined && !isRemoteRepository(repo)) {
      throw new AppError("invalid_request", "pull-request checkouts need a remote repository", { field: `repositories.${position}.prNumber` });
    }
    // Checked in this runner's own copy (see readablePathOnThisRunner).
    const path = readablePathOnThisRunner(deps, repo);
    if (
      path !== null &&
      !(await branchExists(deps.git, path, baseBranch)) &&
      !(isRemoteRepository(repo) && (await remoteBranchExists(deps.git, path, baseBranch)))
    ) {
      throw new AppError("base_branch_not_found", `base branch ${baseBranch} does not exist in ${repo.name}`, {
        field: `repositories.${position}.baseBranch`,
        repositoryId: repo.id,
      });
    }
    const att: TaskRepositoryRecord = {
      repositoryId: repo.id,
      baseBranch,
      checkoutBranch: input.checkoutBranch ?? null,
      prNumber: input.prNumber ?? null,
      position,
    };
    const key = `${repo.id}\u0000${slotSlug(att)}`;
    if (slots.has(key))
      throw new AppError("invalid_request", `repository ${repo.name} is attached twice on the same branch`, { field: `repositories.${position}` });
    slots.add(key);
    attachments.push(att);
  }
  const now = deps.now();
  // WF-2: a workflow's trigger plans the id before the task exists (its run's exactly-once key).
  const id = opts.id ?? newId("task");
  const task: TaskRecord = {
    id,
    title: body.title,
    description: body.description ?? "",
    state: opts.state ?? "todo",
    dirName: taskDirName(body.title, id),
    archivedAt: null,
    createdAt: now,
    updatedAt: now,
    repositories: attachments,
    ...(parentId ? { parentId } : {}),
  };
  await deps.store.insertTask(task);
  deps.bus.publish("task.created", { task: taskView(task) });
  return task;
}

export async function getTaskOr404(deps: Pick<Deps, "store">, id: string): Promise<TaskRecord> {
  const t = await deps.store.getTask(id);
  if (!t) throw new AppError("not_found", `task ${id} not found`, { id });
  return t;
}

export async function patchTask(deps: Pick<Deps, "store" | "bus" | "now">, id: string, body: PatchTaskBody): Promise<TaskRecord> {
  await getTaskOr404(deps, id);
  const updated = await deps.store.updateTask(id, body, deps.now());
  if (!updated) throw new AppError("not_found", `task ${id} not found`, { id });
  deps.bus.publish("task.updated", { task: taskView(updated) });
  return updated;
}

/** Re-derives a task's state from its sessions (in_progress while one works, review when all wait). */
export async function refreshTaskState(deps: Pick<Deps, "store" | "bus" | "now">, taskId: string): Promise<void> {
  // Compare-and-set from the state that was read: a state a person set meanwhile (PATCH
  // state=done) is never overwritten; it is re-read and the derivation runs on it instead.
  for (let tries = 0; tries < 3; tries += 1) {
    const task = await deps.store.getTask(taskId);
    if (!task) return;
    // WF-1: under a workflow that automates, its transitions move the task, not its sessions.
    if (!(await boardDerivesState(deps, task))) return;
    const sessions = await deps.store.listSessions(taskId);
    // LIVE-2: a session waiting after a failed turn counts as failed: no move to Review.
    const next = deriveTaskState(task.state, sessions.map(effectiveSessionState));
    if (next === task.state) return;
    const updated = await deps.store.setTaskStateIf(taskId, task.state, next, deps.now());
    if (updated) {
      deps.bus.publish("task.updated", { task: taskView(updated) });
      return;
    }
  }
}
