import { lstat, readFile, realpath } from "node:fs/promises";
import { rebasingBranch } from "../../git/rebase-head.js";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { AppError } from "../../domain/errors.js";
import type { Deps } from "../context.js";

/**
 * What is at a slot's recorded worktree path, from a cheap local look (WT-5: stat plus the
 * recorded `.git` link, no network and no git process apart from the repository's cached
 * common dir):
 * - `ok`: the directory is the recorded linked worktree of the repository, on its branch;
 * - `missing`: nothing is there (recreate in place);
 * - `foreign`: something else is there (never overwritten; `reason` says what).
 */
export type SlotDiskState =
  | { state: "ok" }
  | { state: "missing" }
  | { state: "foreign"; reason: "not_a_directory" | "not_a_worktree" | "wrong_repository" | "wrong_branch" | "detached_head"; message: string };

/** One slot's identity as recorded in its row. */
export interface SlotIdentity {
  repoPath: string;
  worktreePath: string;
  branch: string;
}

async function readText(path: string): Promise<string | null> {
  try {
    return await readFile(path, "utf8");
  } catch {
    return null;
  }
}

/** WT-5 / SES-3, cheap: the recorded worktree's state on disk (see SlotDiskState). */
export async function checkSlotOnDisk(deps: Deps, slot: SlotIdentity): Promise<SlotDiskState> {
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
  const link = await readText(join(worktreePath, ".git"));
  const m = link === null ? null : /^gitdir: (.+)$/m.exec(link);
  if (!m?.[1]) return foreign("not_a_worktree", `${worktreePath} exists but is not a linked git worktree (no .git link)`);
  const gitDir = isAbsolute(m[1]) ? m[1] : resolve(worktreePath, m[1]);
  const realGitDir = await realpath(gitDir).catch(() => null);
  const common = await deps.git.commonDir(slot.repoPath);
  if (realGitDir === null || dirname(dirname(realGitDir)) !== common) {
    return foreign("wrong_repository", `${worktreePath} is a worktree of another repository (${gitDir})`);
  }
  // The back link: git's record of where this worktree lives must be this very path.
  const recorded = (await readText(join(realGitDir, "gitdir")))?.trim();
  const back = recorded ? (isAbsolute(recorded) ? recorded : resolve(realGitDir, recorded)) : null;
  const here = await realpath(join(worktreePath, ".git")).catch(() => null);
  if (!back || (await realpath(back).catch(() => back)) !== here) {
    return foreign("not_a_worktree", `${worktreePath} carries a .git link that git records for another path`);
  }
  const head = (await readText(join(realGitDir, "HEAD")))?.trim() ?? "";
  if (!head.startsWith("ref: ") && (await rebasingBranch(realGitDir)) === `refs/heads/${branch}`) return { state: "ok" };
  if (!head.startsWith("ref: ")) return foreign("detached_head", `${worktreePath} has a detached HEAD, expected branch ${branch}`);
  if (head !== `ref: refs/heads/${branch}`) return foreign("wrong_branch", `${worktreePath} is on ${head.replace(/^ref: refs\/heads\//, "")}, expected ${branch}`);
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
export function reuseUnsafe(state: Extract<SlotDiskState, { state: "foreign" }>, input: { taskId: string; repositoryId: string; worktreePath: string; branch: string }): AppError {
  return new AppError("workspace_reuse_unsafe", `worktree ${input.worktreePath} cannot be used: ${state.message}`, {
    reason: state.reason,
    repositoryId: input.repositoryId,
    worktreePath: input.worktreePath,
    action: reuseAction(state.reason, input),
  });
}
