import { lstat } from "node:fs/promises";
import { join } from "node:path";
import { rebasingBranch } from "../../git/rebase-head.js";
import { AppError } from "../../domain/errors.js";
import { tamperedError } from "../../git/worktrees.js";
import type { PinnedWorktree } from "../../git/worktree-link.js";
import type { Deps } from "../context.js";
import { readPlainText } from "../../git/plain-file.js";

/**
 * What is at a slot's recorded worktree path, from a cheap local look (WT-5: stat plus git's own
 * admin files, no network and no git process apart from the repository's cached common dir):
 * - `ok`: the directory is the recorded linked worktree of the repository, on its branch;
 * - `missing`: nothing is there (recreate in place);
 * - `tampered`: git still records the worktree, but its `.git` points elsewhere (SBX-4: nothing
 *   runs in it until `POST /tasks/:id/environment/restore` writes the link back);
 * - `foreign`: something else is there (never overwritten; `reason` says what).
 */
export type SlotDiskState =
  | { state: "ok" }
  | { state: "missing" }
  | { state: "tampered"; message: string }
  | { state: "foreign"; reason: "not_a_directory" | "not_a_worktree" | "wrong_repository" | "wrong_branch" | "detached_head"; message: string };

/** One slot's identity as recorded in its row. */
export interface SlotIdentity {
  repoPath: string;
  worktreePath: string;
  branch: string;
}

/** WT-5 / SES-3 / SBX-4, cheap: the recorded worktree's state on disk (see SlotDiskState). */
export async function checkSlotOnDisk(deps: Pick<Deps, "worktrees">, slot: SlotIdentity): Promise<SlotDiskState> {
  const { worktreePath, branch } = slot;
  const foreign = (reason: Extract<SlotDiskState, { state: "foreign" }>["reason"], message: string): SlotDiskState => ({ state: "foreign", reason, message });
  let st;
  try {
    st = await lstat(worktreePath);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return { state: "missing" };
    throw e;
  }
  if (!st.isDirectory()) return foreign("not_a_directory", `${worktreePath} is not a directory`);
  const link = await deps.worktrees.link({ repoPath: slot.repoPath, worktreePath });
  if (link.state === "tampered") return { state: "tampered", message: link.message };
  if (link.state === "unlinked") return foreign("not_a_worktree", `${worktreePath} exists but is not a linked git worktree (no .git link)`);
  if (link.state === "unregistered") {
    const v = await deps.worktrees.validate({ repoPath: slot.repoPath, worktreePath, branch });
    const reason = !v.ok && v.reason === "wrong_repository" ? "wrong_repository" : "not_a_worktree";
    return foreign(reason, v.ok ? `${worktreePath} carries a .git link that git records for another path` : v.message);
  }
  // HEAD from git's own admin dir of the worktree (the recorded one, never the `.git` link's).
  const gitDir = link.pin.gitDir;
  const head = (await readPlainText(join(gitDir, "HEAD")))?.trim() ?? "";
  if (!head.startsWith("ref: ") && (await rebasingBranch(gitDir)) === `refs/heads/${branch}`) return { state: "ok" };
  if (!head.startsWith("ref: ")) return foreign("detached_head", `${worktreePath} has a detached HEAD, expected branch ${branch}`);
  if (head !== `ref: refs/heads/${branch}`)
    return foreign("wrong_branch", `${worktreePath} is on ${head.replace(/^ref: refs\/heads\//, "")}, expected ${branch}`);
  return { state: "ok" };
}

/** The command a person runs to bring a task's worktrees back (shown in `details.action`). */
export function restoreCommand(taskId: string): string {
  return `grove task restore ${taskId}`;
}

/**
 * `details.action` of `workspace_reuse_unsafe` (SES-3, WT-5): what fixes each reason. A
 * foreign directory is the person's to move; Grove never overwrites it.
 */
export function reuseAction(reason: string, input: { taskId: string; worktreePath: string; branch: string }): string {
  const { taskId, worktreePath, branch } = input;
  switch (reason) {
    case "missing":
      return `the worktree is recreated on the next prompt, resume or new session; or run \`${restoreCommand(taskId)}\``;
    case "wrong_branch":
    case "detached_head":
      return `switch ${worktreePath} back to its branch: \`git -C ${worktreePath} switch ${branch}\``;
    default:
      return `move or delete ${worktreePath} (it is not the task's recorded worktree; Grove never overwrites it), then run \`${restoreCommand(taskId)}\``;
  }
}

/** The SES-3 refusal for a slot whose path holds something else, with its action. */
export function reuseUnsafe(
  state: Extract<SlotDiskState, { state: "foreign" }>,
  input: { taskId: string; repositoryId: string; worktreePath: string; branch: string },
): AppError {
  return new AppError("workspace_reuse_unsafe", `worktree ${input.worktreePath} cannot be used: ${state.message}`, {
    reason: state.reason,
    repositoryId: input.repositoryId,
    worktreePath: input.worktreePath,
    action: reuseAction(state.reason, input),
  });
}

/** SBX-4: the refusal for a tampered slot (`workspace_tampered`), scoped and with its fix. */
export function tamperedSlot(
  state: Extract<SlotDiskState, { state: "tampered" }>,
  input: { taskId: string; repositoryId: string; worktreePath: string },
): AppError {
  const e = tamperedError(input.worktreePath, state.message, { taskId: input.taskId, repositoryId: input.repositoryId });
  return new AppError(e.code, e.message, { ...e.details, action: tamperedAction(input.taskId) });
}

/** What a person runs to repair a tampered worktree's `.git` link. */
export function tamperedAction(taskId: string): string {
  return `check what rewrote the worktree's .git, then run \`${restoreCommand(taskId)}\` (POST /tasks/${taskId}/environment/restore): the link is written back to the recorded git dir`;
}

/**
 * SBX-4: the pinned location of a recorded slot for every git call Grove makes in it; a
 * redirected `.git` is `workspace_tampered` with the task's restore command as its action.
 */
export async function pinSlot(
  deps: Pick<Deps, "worktrees">,
  slot: { taskId: string; repositoryId: string; repoPath: string; worktreePath: string },
): Promise<PinnedWorktree> {
  try {
    return await deps.worktrees.pin({ repoPath: slot.repoPath, worktreePath: slot.worktreePath });
  } catch (e) {
    if (e instanceof AppError && e.code === "workspace_tampered") {
      throw new AppError(e.code, e.message, { ...e.details, taskId: slot.taskId, repositoryId: slot.repositoryId, action: tamperedAction(slot.taskId) });
    }
    if (e instanceof AppError) throw new AppError(e.code, e.message, { ...e.details, taskId: slot.taskId, repositoryId: slot.repositoryId });
    throw e;
  }
}
