import { AppError } from "../domain/errors.js";
import type { GitRunner } from "./runner.js";
import type { GitCwd } from "./worktree-link.js";

const SHA = /^[0-9a-f]{40,64}$/;

/**
 * The merged tree of two commits computed by `git merge-tree --write-tree` (git ≥ 2.38): objects
 * only, no index, no working tree, no ref touched. Conflicts → `merge_conflict` with the paths.
 */
export async function mergeTree(git: GitRunner, cwd: string, ours: string, theirs: string): Promise<string> {
  if (!SHA.test(ours) || !SHA.test(theirs)) throw new Error("mergeTree needs commit ids");
  const r = await git.run(["merge-tree", "--write-tree", "--name-only", "--no-messages", ours, theirs], { cwd, okExitCodes: [1], timeoutMs: 600_000 });
  const lines = r.stdout.split("\n");
  const tree = lines[0]?.trim() ?? "";
  if (r.exitCode === 1) {
    const conflicts = [
      ...new Set(
        lines
          .slice(1)
          .map((l) => l.trim())
          .filter(Boolean),
      ),
    ].sort();
    throw new AppError("merge_conflict", `merging stops on conflicts in ${conflicts.join(", ")}; nothing moved`, { conflicts });
  }
  if (!SHA.test(tree)) throw new AppError("git_failed", "git merge-tree answered no tree", { args: ["merge-tree"] });
  return tree;
}

/** The tree a commit records. */
export async function treeOf(git: GitRunner, cwd: string, commit: string): Promise<string> {
  if (!SHA.test(commit)) throw new Error("treeOf needs a commit id");
  const r = await git.run(["rev-parse", "--verify", `${commit}^{tree}`], { cwd });
  return r.stdout.trim();
}

/** A commit object for `tree` with `parents` and `message`, as the repository's configured identity. */
export async function commitTree(
  git: GitRunner,
  cwd: string,
  tree: string,
  parents: readonly string[],
  message: string,
  env?: Record<string, string>,
): Promise<string> {
  const args = ["commit-tree", tree, ...parents.flatMap((p) => ["-p", p]), "-F", "-"];
  const r = await git.run(args, { cwd, input: message, ...(env && { env }) });
  return r.stdout.trim();
}

/**
 * Moves `ref` from `expected` to `next` with git's compare-and-set (`update-ref <ref> <new>
 * <old>` under the ref's lock): false when the ref no longer is `expected`, and then nothing moved.
 */
export async function moveRef(git: GitRunner, cwd: string, ref: string, next: string, expected: string, reason: string): Promise<boolean> {
  const r = await git.run(["update-ref", "-m", reason, ref, next, expected], { cwd, okExitCodes: [128, 1] });
  return r.exitCode === 0;
}

/** Tracked changes (staged or not) in a checkout, and its untracked paths. */
export async function checkoutState(git: GitRunner, cwd: GitCwd): Promise<{ trackedDirty: boolean; untracked: string[] }> {
  const r = await git.run(["status", "--porcelain=v1", "-z", "--untracked-files=all"], { cwd });
  const entries = r.stdout.split("\0").filter(Boolean);
  return { trackedDirty: entries.some((e) => !e.startsWith("??")), untracked: entries.filter((e) => e.startsWith("?? ")).map((e) => e.slice(3)) };
}

/** Paths that differ between two commits. */
export async function changedPaths(git: GitRunner, cwd: string, from: string, to: string): Promise<string[]> {
  const r = await git.run(["diff", "--name-only", "-z", "--no-renames", from, to], { cwd });
  return r.stdout.split("\0").filter(Boolean);
}

/**
 * Brings a clean checkout whose branch just moved from `from` to `to` along: index and files
 * go from `from`'s tree to `to`'s (a two-tree fast-forward; git refuses to overwrite local edits).
 * RV-4.3: `read-tree` trusts the index's stat data, so a file saved again with the same bytes
 * would read as a local edit; the index is refreshed first, as `git merge` does (the runner's
 * `GIT_OPTIONAL_LOCKS=0` keeps `status` from writing that refresh). A file that really
 * changed stays changed, and `read-tree` refuses it as before.
 */
export async function advanceCheckout(git: GitRunner, cwd: GitCwd, from: string, to: string): Promise<void> {
  await git.run(["update-index", "-q", "--refresh"], { cwd, okExitCodes: [1] });
  await git.run(["read-tree", "-m", "-u", from, to], { cwd });
}
