import type { ChangedFile } from "@grove/protocol";
import { parseRawNumstat, parseStatusV2, type StatusEntry } from "./changes-parse.js";
import { mergeBaseOf } from "./merge-base.js";
import type { GitRunner } from "./runner.js";
import { workTreeOf, type GitCwd } from "./worktree-link.js";
import { countUntracked } from "./untracked.js";

export { fileDiff, type FilePatch } from "./file-diff.js";

/** CHG-1: what a worktree holds relative to its base branch. */
export interface WorktreeChanges {
  /** Current branch of the worktree; "HEAD" when detached. */
  branch: string;
  baseBranch: string;
  /** Merge-base of HEAD and the base branch; null when the histories share no commit. */
  mergeBase: string | null;
  /** Commits on HEAD not on the base branch. */
  ahead: number;
  /** Commits on the base branch not on HEAD. */
  behind: number;
  files: ChangedFile[];
  /** More than `maxFiles` files changed; `files` holds the first `maxFiles` by path. */
  truncated: boolean;
}

function statusOf(diffStatus: string | undefined, st: StatusEntry | undefined): ChangedFile["status"] {
  if (st?.kind === "unmerged" || diffStatus === "U") return "conflicted";
  if (st?.kind === "untracked") return "untracked";
  switch (diffStatus) {
    case "A":
      return "added";
    case "D":
      return "deleted";
    case "R":
    case "C":
      return "renamed";
    case "T":
      return "typechange";
    default:
      return "modified";
  }
}

/**
 * RV-7: the paths the branch's commits change (merge-base → HEAD), read only when it can matter:
 * the branch is ahead and a file of the diff also has uncommitted changes (a file without any
 * is wholly committed, no git needed). One more git process in that case only.
 */
async function committedOnBranch(
  git: GitRunner,
  cwd: GitCwd,
  input: { mergeBase: string | null; ahead: number; diff: string; byPath: Map<string, StatusEntry> },
): Promise<Set<string>> {
  if (input.mergeBase === null || input.ahead === 0) return new Set();
  if (!parseRawNumstat(input.diff).some((d) => input.byPath.has(d.path))) return new Set();
  const run = await git.run(["diff", "--name-only", "-z", "--no-ext-diff", "--no-textconv", input.mergeBase, "HEAD"], { cwd });
  return new Set(run.stdout.split("\0").filter((p) => p !== ""));
}

/**
 * CHG-1, computed in the given worktree (never the source checkout): the file list and line
 * counts are exactly `git diff --numstat -z <merge-base>` (working tree against the merge-base,
 * HEAD when there is none) plus `git ls-files --others --exclude-standard` (untracked files,
 * every line counted as added). Statuses come from the same diff's raw records; staged/unstaged
 * from `git status --porcelain=v2` XY. Four git processes per call, all started at once.
 */
export async function computeChanges(git: GitRunner, input: { worktreePath: GitCwd; baseBranch: string; maxFiles?: number }): Promise<WorktreeChanges> {
  const { worktreePath: cwd, baseBranch } = input;
  const top = workTreeOf(cwd);
  const maxFiles = input.maxFiles ?? 5000;
  // The two expensive walks of the work tree (status, diff) start at once, in parallel with the
  // merge-base and the ahead/behind count: the diff finds the merge-base itself
  // (`--merge-base`), so nothing waits for another git process before it (raw git's
  // merge-base-then-diff is one step longer; bench/changes.ts). The merge-base is still read for
  // the answer, and decides the rare cases the diff cannot: no common history (then the diff is
  // against HEAD) or a missing base (`base_branch_not_found`).
  const mergeBaseRun = mergeBaseOf(git, cwd, baseBranch);
  const diffArgs = ["diff", "--raw", "--numstat", "-z", "--no-ext-diff", "--no-textconv"];
  const diffOnBase = git.run([...diffArgs, "--merge-base", "--end-of-options", baseBranch], { cwd, okExitCodes: [128] });
  // -uall lists untracked files one by one, the same set as `ls-files --others --exclude-standard`.
  const statusRun = git.run(["status", "--porcelain=v2", "-z", "--branch", "--untracked-files=all", "--ignore-submodules=none"], { cwd });
  // Untracked files are counted while the diff still runs (status is the quicker walk), as many as
  // the answer can hold; the critical path stays the slower of the two git walks.
  const untrackedRun = statusRun.then(async (run) => {
    const status = parseStatusV2(run.stdout);
    const all = status.entries
      .filter((e) => e.kind === "untracked")
      .map((e) => e.path)
      .sort();
    return { status, all, counted: await countUntracked(top, all.slice(0, maxFiles)) };
  });
  // A missing base fails the three reads of it alike: only the merge-base read may reject for
  // it, with `base_branch_not_found`; the others accept exit 128 and are decided below.
  const countArgs = ["rev-list", "--left-right", "--count", "--end-of-options", `${baseBranch}...HEAD`];
  const [mergeBase, { status, all: allUntracked, counted }, firstCounts, firstDiff] = await Promise.all([
    mergeBaseRun,
    untrackedRun,
    git.run(countArgs, { cwd, okExitCodes: [128] }),
    diffOnBase,
  ]);
  const counts = firstCounts.exitCode === 0 ? firstCounts : await git.run(countArgs, { cwd });
  // 128: no merge-base (unrelated histories), or HEAD moved between the two reads: diff against
  // what the merge-base read found, HEAD when there is none.
  const diffRun = firstDiff.exitCode === 0 ? firstDiff : await git.run([...diffArgs, mergeBase ?? "HEAD"], { cwd });

  const byPath = new Map(status.entries.map((e) => [e.path, e] as const));
  const [behind = 0, ahead = 0] = counts.stdout.trim().split(/\s+/).map(Number);
  const committedPaths = await committedOnBranch(git, cwd, { mergeBase, ahead, diff: diffRun.stdout, byPath });

  const files: ChangedFile[] = [];
  const seen = new Set<string>();
  for (const d of parseRawNumstat(diffRun.stdout)) {
    if (seen.has(d.path)) continue; // an unmerged path can be listed once per stage
    seen.add(d.path);
    const st = byPath.get(d.path);
    const file: ChangedFile = {
      path: d.path,
      status: statusOf(d.status, st),
      staged: st !== undefined && st.x !== ".",
      unstaged: st !== undefined && st.y !== ".",
      additions: d.additions ?? 0,
      deletions: d.deletions ?? 0,
      binary: d.additions === null,
      committed: st === undefined || committedPaths.has(d.path),
    };
    if (d.oldPath !== undefined) file.oldPath = d.oldPath;
    files.push(file);
  }
  const untracked = allUntracked.filter((p) => !seen.has(p));
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));

  // Tracked changes first, then untracked, capped.
  const kept = files.slice(0, maxFiles);
  const untrackedKept = untracked.slice(0, Math.max(0, maxFiles - kept.length));
  const countOf = new Map(counted.map((c) => [c.path, c] as const));
  // The first maxFiles untracked paths always hold the ones kept (each tracked path that hides
  // one also takes a kept place); anything else would be counted here rather than guessed.
  const missing = untrackedKept.filter((p) => !countOf.has(p));
  for (const c of missing.length > 0 ? await countUntracked(top, missing) : []) countOf.set(c.path, c);
  for (const path of untrackedKept) {
    const u = countOf.get(path);
    kept.push({
      path,
      status: "untracked",
      staged: false,
      unstaged: true,
      additions: u?.lines ?? 0,
      deletions: 0,
      binary: u?.binary ?? false,
      committed: false,
    });
  }
  kept.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return {
    branch: status.branch ?? "HEAD",
    baseBranch,
    mergeBase,
    ahead,
    behind,
    files: kept,
    truncated: files.length + untracked.length > maxFiles,
  };
}
