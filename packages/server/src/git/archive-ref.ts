import { chmod, copyFile, lstat, readlink, rm, symlink, writeFile } from "node:fs/promises";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { AppError } from "../domain/errors.js";
import type { GitRunner } from "./runner.js";
import { workTreeOf, type GitCwd } from "./worktree-link.js";
import { readPlainFile } from "./plain-file.js";

/**
 * LC-8: uncommitted work saved outside the branch. A dirty worktree's tracked and untracked
 * (not ignored) files — plus the ignored paths the caller names (copy-files, WT-9) — are written
 * as one commit, built with a temporary index (the worktree's own index and the branch are
 * never touched), and kept on a private ref `refs/grove/archived/<taskId>/<slot>` that no
 * branch listing shows. The first parent is the branch head, so the commit's diff against its
 * first parent is exactly the uncommitted work; an earlier save still on the ref becomes the
 * second parent, so a later save never makes an earlier one unreachable.
 */

/** Who the saved commit is attributed to (no user identity is needed or read). */
const IDENTITY = {
  GIT_AUTHOR_NAME: "Grove",
  GIT_AUTHOR_EMAIL: "grove@localhost.invalid",
  GIT_COMMITTER_NAME: "Grove",
  GIT_COMMITTER_EMAIL: "grove@localhost.invalid",
};

/** The private ref of one slot; `slot` is the slot's branch slug (or "default" for a flat slot). */
export function archivedWorkRef(taskId: string, slot: string): string {
  const part = (s: string): string => s.replace(/[^A-Za-z0-9_-]/g, "-") || "default";
  return `refs/grove/archived/${part(taskId)}/${part(slot)}`;
}

const literal = (p: string): string => `:(literal)${p}`;

/** `rev-parse --verify` of ONE revision; null when it does not resolve (e.g. an unborn HEAD). */
async function resolve(git: GitRunner, cwd: GitCwd, rev: string): Promise<string | null> {
  const r = await git.run(["rev-parse", "--verify", "--quiet", "--end-of-options", rev], { cwd, okExitCodes: [1, 128] });
  const sha = r.stdout.trim();
  return r.exitCode === 0 && sha ? sha : null;
}

/** The subset of `paths` (relative to the worktree) that exist and are untracked and ignored. */
export async function ignoredAmong(git: GitRunner, worktreePath: GitCwd, paths: readonly string[]): Promise<string[]> {
  if (paths.length === 0) return [];
  const r = await git.run(["ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--", ...paths.map(literal)], { cwd: worktreePath });
  return r.stdout.split("\0").filter(Boolean);
}

/**
 * Saves the worktree's uncommitted and untracked work (and the ignored `extraPaths`) on `ref`
 * and returns the commit, or null when there is nothing to save (the ref is left alone).
 * Read-only for the worktree itself: only a temporary index next to the real one is written.
 * The ref is moved compare-and-set from the value read here, so a concurrent save fails
 * instead of silently dropping the other one.
 */
export async function saveWorkToRef(
  git: GitRunner,
  worktreePath: GitCwd,
  ref: string,
  message: string,
  extraPaths: readonly string[] = [],
): Promise<string | null> {
  const cwd = worktreePath;
  const indexPath = (await git.run(["rev-parse", "--path-format=absolute", "--git-path", "index"], { cwd })).stdout.trim();
  const tmpIndex = `${indexPath}.grove-archive-${randomBytes(4).toString("hex")}`;
  try {
    // Starting from a copy of the real index lets `add -A` reuse its stat cache (fast on big trees).
    await copyFile(indexPath, tmpIndex).catch(() => undefined);
    const env = { GIT_INDEX_FILE: tmpIndex };
    await git.run(["add", "-A", "--", "."], { cwd, env });
    // Ignored files `add -A` skipped but that `worktree remove --force` would destroy (WT-9).
    const extras = await ignoredAmong(git, cwd, extraPaths);
    if (extras.length > 0) await git.run(["add", "-f", "--", ...extras.map(literal)], { cwd, env });
    const tree = (await git.run(["write-tree"], { cwd, env })).stdout.trim();
    // The staged part on its own (LC-8 keeps staged and unstaged apart), from a copy of the real
    // index so even git's cache-tree refresh never writes the worktree's own index.
    const stagedTree = await indexTree(git, cwd, indexPath, `${tmpIndex}.staged`);
    // Resolved one by one: `--verify` with two revisions always fails.
    const headCommit = await resolve(git, cwd, "HEAD^{commit}");
    const headTree = headCommit ? await resolve(git, cwd, "HEAD^{tree}") : null;
    if (headTree === tree && stagedTree === tree) return null;
    // An unborn HEAD: the base is an empty root commit, so "first parent" always means the base.
    const base = headCommit ?? (await emptyRoot(git, cwd, tmpIndex));
    const baseTree = await resolve(git, cwd, `${base}^{tree}`);
    const previous = await readRef(git, cwd, ref);
    // A retried cleanup attempt saves the same work again: the existing save already holds it.
    if (previous && (await resolve(git, cwd, `${previous}^{tree}`)) === tree && (await resolve(git, cwd, `${previous}^1`)) === base) return previous;
    const staged =
      stagedTree !== null && stagedTree !== baseTree
        ? (await git.run(["commit-tree", stagedTree, "-p", base, "-m", "grove: staged part of the saved work"], { cwd, env: IDENTITY })).stdout.trim()
        : null;
    const parents = ["-p", base, ...(staged ? ["-p", staged] : []), ...(previous ? ["-p", previous] : [])];
    const body = staged ? `${message}\n\n${STAGED_TRAILER}` : message;
    const commit = (await git.run(["commit-tree", tree, ...parents, "-m", body], { cwd, env: IDENTITY })).stdout.trim();
    await git.run(["update-ref", "-m", "grove: save uncommitted work", ref, commit, previous ?? "0".repeat(commit.length)], { cwd });
    return commit;
  } finally {
    await rm(tmpIndex, { force: true });
  }
}

/**
 * Marks a save whose second parent is its staged part (the index as it was); the earlier save,
 * if any, is then the third parent. Saves without it keep the older layout (earlier = ^2).
 */
const STAGED_TRAILER = "Grove-Staged: second-parent";

/** The tree of the worktree's index, written from a throwaway copy; null without an index. */
async function indexTree(git: GitRunner, cwd: GitCwd, indexPath: string, scratch: string): Promise<string | null> {
  try {
    await copyFile(indexPath, scratch);
  } catch {
    return null;
  }
  try {
    return (await git.run(["write-tree"], { cwd, env: { GIT_INDEX_FILE: scratch } })).stdout.trim();
  } finally {
    await rm(scratch, { force: true });
  }
}

/** A parentless commit of the empty tree (the base of work saved on an unborn branch). */
async function emptyRoot(git: GitRunner, cwd: GitCwd, scratchIndex: string): Promise<string> {
  const empty = `${scratchIndex}.empty`;
  try {
    const tree = (await git.run(["write-tree"], { cwd, env: { GIT_INDEX_FILE: empty } })).stdout.trim();
    return (await git.run(["commit-tree", tree, "-m", "grove: empty base"], { cwd, env: IDENTITY })).stdout.trim();
  } finally {
    await rm(empty, { force: true });
  }
}

/** The commit `ref` points at, or null. */
export async function readRef(git: GitRunner, repoPath: GitCwd, ref: string): Promise<string | null> {
  return resolve(git, repoPath, `${ref}^{commit}`);
}

/**
 * A saved commit's base (first parent), its staged part (the index as saved, when the save
 * carries one) and the earlier save it carries, if any.
 */
export async function savedParents(
  git: GitRunner,
  cwd: GitCwd,
  commit: string,
): Promise<{ base: string | null; staged: string | null; earlier: string | null }> {
  const raw = (await git.run(["cat-file", "commit", commit], { cwd })).stdout;
  const split = raw.indexOf("\n\n");
  const header = split < 0 ? raw : raw.slice(0, split);
  const parents = header
    .split("\n")
    .filter((l) => l.startsWith("parent "))
    .map((l) => l.slice(7).trim());
  const hasStaged = split >= 0 && raw.slice(split).includes(STAGED_TRAILER);
  return {
    base: parents[0] ?? null,
    staged: hasStaged ? (parents[1] ?? null) : null,
    earlier: (hasStaged ? parents[2] : parents[1]) ?? null,
  };
}

interface Aside {
  path: string;
  data?: Buffer;
  link?: string;
  mode: number;
}

/**
 * LC-8 restore: applies the saved commit's changes (its diff against its first parent) onto the
 * worktree — modifications, deletions, new files, ignored copy-files files — with a three-way
 * fallback, so a branch that moved on since is fine when the changes do not clash. The result
 * is uncommitted: the index is reset to HEAD, new files are untracked (or ignored) again, and
 * then the save's staged part (if it has one) is applied to the index alone, so what was staged
 * is staged again and the rest stays unstaged (`staged: "left_unstaged"` if that no longer applies).
 * Refuses tracked changes in the worktree. An ignored or untracked file the save would add
 * (e.g. a `.env` just copied by WT-9) is replaced by the saved one. A conflict → `git_failed`
 * and the worktree is put back as it was.
 */
export async function restoreWorkFromRef(git: GitRunner, worktreePath: GitCwd, commit: string): Promise<{ staged: "none" | "restored" | "left_unstaged" }> {
  const cwd = worktreePath;
  const dirty = await git.run(["status", "--porcelain", "-z", "--untracked-files=no"], { cwd });
  if (dirty.stdoutBuffer.length > 0)
    throw new AppError("git_failed", `cannot restore ${commit}: ${workTreeOf(worktreePath)} has uncommitted changes`, { commit });
  // A save from before saves were parented has no base: its tree is the whole worktree state.
  const parents = await savedParents(git, cwd, commit);
  const base = parents.base ?? "HEAD";
  const patch = (await git.run(["diff", "--no-ext-diff", "--no-textconv", "--binary", "--full-index", "--no-renames", base, commit, "--"], { cwd }))
    .stdoutBuffer;
  if (patch.length === 0) return { staged: "none" };
  const added = (await git.run(["diff", "-z", "--name-only", "--no-renames", "--diff-filter=A", base, commit, "--"], { cwd })).stdout
    .split("\0")
    .filter(Boolean);
  const aside = await moveAside(workTreeOf(cwd), added);
  try {
    await git.run(["apply", "--3way", "--whitespace=nowarn", "-"], { cwd, input: patch });
  } catch (e) {
    await git.run(["reset", "-q", "--hard", "HEAD"], { cwd }).catch(() => undefined);
    await putBack(aside);
    throw e;
  }
  await git.run(["reset", "-q"], { cwd });
  if (parents.staged === null) return { staged: "none" };
  // The staged part goes back into the index only; if it no longer applies (the branch moved
  // on), everything stays unstaged — the work itself is back either way.
  const stagedPatch = (
    await git.run(["diff", "--no-ext-diff", "--no-textconv", "--binary", "--full-index", "--no-renames", base, parents.staged, "--"], { cwd })
  ).stdoutBuffer;
  if (stagedPatch.length === 0) return { staged: "none" };
  const r = await git.run(["apply", "--cached", "--whitespace=nowarn", "-"], { cwd, input: stagedPatch, okExitCodes: [1] });
  return { staged: r.exitCode === 0 ? "restored" : "left_unstaged" };
}

/** Takes existing files at `paths` out of the way (kept in memory) so the apply can create them. */
async function moveAside(cwd: string, paths: readonly string[]): Promise<Aside[]> {
  const out: Aside[] = [];
  for (const rel of paths) {
    const path = join(cwd, rel);
    const st = await lstat(path).catch(() => undefined);
    if (!st || !(st.isFile() || st.isSymbolicLink())) continue; // a FIFO (say) is no work, and reading one would block (plain-file.ts)
    if (st.isSymbolicLink()) {
      out.push({ path, link: await readlink(path), mode: st.mode });
    } else {
      const data = await readPlainFile(path, Number.MAX_SAFE_INTEGER);
      if (data === null) continue;
      out.push({ path, data, mode: st.mode });
    }
    await rm(path, { force: true });
  }
  return out;
}

async function putBack(aside: readonly Aside[]): Promise<void> {
  for (const a of aside) {
    await rm(a.path, { force: true }).catch(() => undefined);
    if (a.link !== undefined) await symlink(a.link, a.path).catch(() => undefined);
    else if (a.data)
      await writeFile(a.path, a.data)
        .then(() => chmod(a.path, a.mode & 0o777))
        .catch(() => undefined);
  }
}

/** Deletes `ref` if it still points at `expected` (compare-and-set in git). */
export async function deleteRef(git: GitRunner, repoPath: string, ref: string, expected: string): Promise<void> {
  await git.run(["update-ref", "-d", ref, expected], { cwd: repoPath });
}

/** Moves `ref` from `expected` to `next` (compare-and-set in git). */
export async function moveRef(git: GitRunner, repoPath: string, ref: string, next: string, expected: string): Promise<void> {
  await git.run(["update-ref", "-m", "grove: newest saved work restored", ref, next, expected], { cwd: repoPath });
}
