import { mergeBaseOf } from "./merge-base.js";
import type { GitResult } from "./run-options.js";
import type { GitRunner } from "./runner.js";
import type { GitCwd } from "./worktree-link.js";

/** CHG-2: one file's unified patch. */
export interface FilePatch {
  patch: string;
  binary: boolean;
  truncated: boolean;
}

// A user path after `--` is still a pathspec (`*`, `:(glob)`...): make it match literally.
const LITERAL = { GIT_LITERAL_PATHSPECS: "1" };
const DIFF_FLAGS = ["--no-color", "--no-ext-diff", "--no-textconv"];

function isBinaryPatch(patch: string): boolean {
  // Header lines come before the first hunk; a binary diff has no hunk, only this line.
  const firstHunk = patch.indexOf("\n@@ ");
  const header = firstHunk < 0 ? patch : patch.slice(0, firstHunk);
  return /(^|\n)Binary files .* differ(\n|$)/.test(header) || header.includes("\nGIT binary patch\n");
}

function toPatch(r: GitResult, maxBytes: number): FilePatch {
  if (isBinaryPatch(r.stdout)) return { patch: "", binary: true, truncated: false };
  if (r.stdoutBuffer.length <= maxBytes && !r.stdoutTruncated) return { patch: r.stdout, binary: false, truncated: false };
  // Cut at a line end so the client never renders half a line (or half a UTF-8 character).
  const cut = r.stdoutBuffer.subarray(0, maxBytes);
  const end = cut.lastIndexOf(0x0a);
  return { patch: cut.subarray(0, end < 0 ? 0 : end + 1).toString("utf8"), binary: false, truncated: true };
}

/**
 * CHG-2: the unified patch of `path` (relative to the worktree top) against the merge-base of
 * HEAD and `baseBranch`, including uncommitted changes; an untracked file diffs as a new file
 * (`--no-index /dev/null <path>`). Binary files give `{binary: true, patch: ""}`; patches over
 * `maxBytes` (default 512 KiB) are cut at a line end and flagged `truncated`. The caller confines
 * `path` to the worktree (SEC-2); here it only ever follows `--` and matches literally.
 * A renamed file shows as added under its new path (only one path is known here).
 * `scope` (RV-7) narrows the patch to the branch's commits or to the uncommitted part.
 */
export async function fileDiff(
  git: GitRunner,
  input: { worktreePath: GitCwd; baseBranch: string; path: string; maxBytes?: number; scope?: "all" | "committed" | "uncommitted" },
): Promise<FilePatch> {
  const { worktreePath: cwd, baseBranch, path } = input;
  const scope = input.scope ?? "all";
  const maxBytes = input.maxBytes ?? 512 * 1024;
  const limit = { maxStdoutBytes: maxBytes + 1 };
  // RV-7: committed = merge-base → HEAD (what the branch's commits did); uncommitted = HEAD →
  // working tree (index included), the part a commit would add; all = merge-base → working tree.
  const mergeBase = scope === "uncommitted" ? null : await mergeBaseOf(git, cwd, baseBranch);
  if (scope === "committed" && mergeBase === null) return { patch: "", binary: false, truncated: false };
  const range = scope === "committed" ? [mergeBase!, "HEAD"] : scope === "uncommitted" ? ["HEAD"] : [mergeBase ?? "HEAD"];
  const tracked = await git.run(["-c", "core.quotePath=false", "diff", ...DIFF_FLAGS, ...range, "--", path], { cwd, env: LITERAL, ...limit });
  if (tracked.stdoutBuffer.length > 0) return toPatch(tracked, maxBytes);
  if (scope === "committed") return { patch: "", binary: false, truncated: false };

  const others = await git.run(["ls-files", "--others", "--exclude-standard", "-z", "--", path], { cwd, env: LITERAL });
  if (!others.stdout.split("\0").includes(path)) return { patch: "", binary: false, truncated: false };
  const untracked = await git.run(["-c", "core.quotePath=false", "diff", ...DIFF_FLAGS, "--no-index", "--", "/dev/null", path], {
    cwd,
    okExitCodes: [1],
    ...limit,
  });
  return toPatch(untracked, maxBytes);
}
