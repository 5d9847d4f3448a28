import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { AppError } from "../domain/errors.js";
import type { GitRunner } from "./runner.js";
import { workTreeOf, type GitCwd } from "./worktree-link.js";
import { readPlainText } from "./plain-file.js";

const ANY_FAILURE = Array.from({ length: 255 }, (_, i) => i + 1);

/** A rebase or merge stopped in a worktree (conflicts kept, or a crash mid-way). */
export type InProgress = "rebase" | "merge" | null;

/** Git's own state files of a stopped rebase (either backend) and of a stopped merge, in this order. */
const STATE_FILES = ["rebase-merge", "rebase-apply", "MERGE_HEAD"] as const;

/**
 * The absolute paths of git's state files in the worktree (per worktree: a linked worktree's live
 * in its admin dir, `.git/worktrees/<name>/`). This runs for every worktree on each doctor pass
 * and each workflow base check. A pinned task worktree's admin dir is known (SBX-4: git runs
 * there with that `GIT_DIR`, where `--git-path` of these per-worktree files is `$GIT_DIR/<file>`),
 * so no git runs; elsewhere one `rev-parse` resolves all three. A path with a line break in it
 * (git prints one path a line) is resolved one at a time.
 */
async function stateFilePaths(git: GitRunner, cwd: GitCwd): Promise<string[]> {
  if (typeof cwd !== "string") return STATE_FILES.map((f) => join(cwd.gitDir, f));
  const gitPaths = async (names: readonly string[]) =>
    (await git.run(["rev-parse", "--path-format=absolute", ...names.flatMap((f) => ["--git-path", f])], { cwd })).stdout;
  const lines = (await gitPaths(STATE_FILES)).split("\n").slice(0, -1);
  const paths = lines.length === STATE_FILES.length ? lines : await Promise.all(STATE_FILES.map(async (f) => (await gitPaths([f])).slice(0, -1)));
  return paths.map((p) => resolve(workTreeOf(cwd), p));
}

/** Which operation is stopped in the worktree, if any (git's own state files decide). */
export async function operationInProgress(git: GitRunner, cwd: GitCwd): Promise<InProgress> {
  const [rebaseMerge, rebaseApply, mergeHead] = (await stateFilePaths(git, cwd)).map((p) => existsSync(p));
  if (rebaseMerge || rebaseApply) return "rebase";
  if (mergeHead) return "merge";
  return null;
}

/** Paths with unmerged index entries. */
export async function conflictedPaths(git: GitRunner, cwd: GitCwd): Promise<string[]> {
  const r = await git.run(["diff", "--name-only", "--diff-filter=U", "-z"], { cwd });
  return [...new Set(r.stdout.split("\0").filter(Boolean))].sort();
}

/** Whether `ancestor` is reachable from `commit`. */
export async function isAncestor(git: GitRunner, cwd: GitCwd, ancestor: string, commit: string): Promise<boolean> {
  const r = await git.run(["merge-base", "--is-ancestor", ancestor, commit], { cwd, okExitCodes: [1] });
  return r.exitCode === 0;
}

/** The backup refs of a task, oldest first. */
export async function backupRefs(git: GitRunner, cwd: GitCwd, taskId: string): Promise<string[]> {
  const r = await git.run(["for-each-ref", "--format=%(refname)", `refs/grove/backup/${taskId}/`], { cwd });
  const refs = r.stdout.split("\n").filter(Boolean);
  return refs.sort((a, b) => Number(a.split("/").pop()) - Number(b.split("/").pop()));
}

/**
 * Records `commit` under the next free `refs/grove/backup/<task>/<n>`. Create-only
 * (`update-ref <ref> <new> ""` refuses an existing ref), so two updates never share a number.
 */
export async function createBackupRef(git: GitRunner, cwd: GitCwd, taskId: string, commit: string): Promise<string> {
  if (!/^[A-Za-z0-9_-]+$/.test(taskId)) throw new Error("invalid task id for a backup ref");
  for (let attempt = 0; attempt < 5; attempt++) {
    const last = (await backupRefs(git, cwd, taskId)).pop();
    const ref = `refs/grove/backup/${taskId}/${last ? Number(last.split("/").pop()) + 1 : 1}`;
    const r = await git.run(["update-ref", "-m", "grove: backup before update from base", ref, commit, ""], { cwd, okExitCodes: [128] });
    if (r.exitCode === 0) return ref;
  }
  throw new AppError("git_failed", "could not create a backup ref after 5 attempts", { args: ["update-ref"] });
}

/** Git's own reason for a failed rebase/merge step: the last non-empty line it printed. */
function lastLine(r: { stdout: string; stderr: string }): string {
  return (
    `${r.stdout}${r.stderr}`
      .split("\n")
      .map((l) => l.trim())
      .filter(Boolean)
      .pop() ?? "no message"
  );
}

/**
 * Brings the checked-out branch onto `base` (a commit id): `rebase` (default) or `merge`, with
 * git's own autostash when asked. Answers whether it stopped on conflicts; any other failure
 * (e.g. an untracked file in the way) throws with nothing changed.
 */
export async function integrateBase(
  git: GitRunner,
  cwd: GitCwd,
  base: string,
  opts: { mode: "rebase" | "merge"; autostash: boolean; env?: Record<string, string> },
): Promise<{ stopped: boolean }> {
  if (!/^[0-9a-f]{40,64}$/.test(base)) throw new Error("base must be a commit id");
  const stash = opts.autostash ? "--autostash" : "--no-autostash";
  const args = opts.mode === "rebase" ? ["rebase", stash, "--no-autosquash", base] : ["merge", "--no-edit", stash, "-m", "Merge base into task branch", base];
  const r = await git.run(args, { cwd, ...(opts.env && { env: opts.env }), okExitCodes: ANY_FAILURE, timeoutMs: 600_000, hooks: true });
  if (r.exitCode === 0) return { stopped: false };
  if ((await operationInProgress(git, cwd)) !== null) return { stopped: true };
  throw new AppError("git_failed", `git ${opts.mode} refused to start (exit ${r.exitCode}): ${lastLine(r)}`, { args: [opts.mode], exitCode: r.exitCode });
}

/** Undoes a stopped rebase/merge: branch, index and files as before it started (autostash re-applied). */
export async function abortIntegration(git: GitRunner, cwd: GitCwd, kind: "rebase" | "merge"): Promise<void> {
  await git.run([kind, "--abort"], { cwd, timeoutMs: 600_000 });
}

const MARKER = /^(<{7}|>{7})( |$)/m;
const MAX_CONFLICTED_BYTES = 256 * 1024 * 1024;

/** Conflicted paths whose file still holds conflict markers (not yet resolved by a person or agent). */
export async function unresolvedPaths(cwd: GitCwd, paths: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const p of paths) {
    // A plain file only (plain-file.ts): what is not one holds no markers git could have written.
    const text = (await readPlainText(join(workTreeOf(cwd), p), MAX_CONFLICTED_BYTES)) ?? "";
    if (MARKER.test(text)) out.push(p);
  }
  return out;
}

/** Stages the resolved paths and lets git go on; answers whether it stopped again (next commit conflicts). */
export async function continueIntegration(
  git: GitRunner,
  cwd: GitCwd,
  kind: "rebase" | "merge",
  resolved: readonly string[],
  env?: Record<string, string>,
): Promise<{ stopped: boolean }> {
  if (resolved.length > 0) await git.run(["--literal-pathspecs", "add", "-A", "--", ...resolved], { cwd });
  const args = kind === "rebase" ? ["rebase", "--continue"] : ["commit", "--no-edit", "--no-verify"];
  const r = await git.run(args, { cwd, ...(env && { env }), okExitCodes: ANY_FAILURE, timeoutMs: 600_000, hooks: true });
  if (r.exitCode === 0) return { stopped: (await operationInProgress(git, cwd)) !== null };
  if ((await conflictedPaths(git, cwd)).length > 0) return { stopped: true };
  throw new AppError("git_failed", `git ${kind} --continue failed (exit ${r.exitCode}): ${lastLine(r)}`, { args: [kind], exitCode: r.exitCode });
}
