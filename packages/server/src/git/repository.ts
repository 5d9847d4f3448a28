import { realpath, stat } from "node:fs/promises";
import { isAbsolute, resolve } from "node:path";
import { AppError, isAppError } from "../domain/errors.js";
import type { GitRunner } from "./runner.js";
import type { GitCwd } from "./worktree-link.js";

/** What Grove records about a local checkout when a person registers it. */
export interface RepositoryInfo {
  /** Real path of the checkout's top level. */
  path: string;
  /** Real path of its common git dir (shared by all its worktrees). */
  commonDir: string;
  /** The checkout's current branch; when detached, `main` or `master` or the first local branch. */
  defaultBranch: string;
  /** `remote.origin.url`, or null. */
  originUrl: string | null;
}

/**
 * Validates a local checkout path given by a person: absolute (`path_not_absolute`), existing
 * (`path_not_found`), and the top level of a non-bare git work tree (`not_a_git_repository`).
 * Read-only, no network.
 */
export async function inspectRepository(git: GitRunner, path: string): Promise<RepositoryInfo> {
  if (!isAbsolute(path)) throw new AppError("path_not_absolute", `repository path ${JSON.stringify(path)} must be absolute`);
  let real: string;
  try {
    real = await realpath(path);
  } catch {
    throw new AppError("path_not_found", `repository path ${path} does not exist`);
  }
  if (!(await stat(real)).isDirectory()) throw new AppError("not_a_git_repository", `${path} is not a directory`);

  const notRepo = (why: string): AppError => new AppError("not_a_git_repository", `${path} is not the top level of a git work tree: ${why}`);
  let lines: string[];
  try {
    const r = await git.run(["rev-parse", "--path-format=absolute", "--is-bare-repository", "--is-inside-work-tree", "--git-common-dir"], { cwd: real });
    lines = r.stdout.split("\n");
  } catch (e) {
    if (isAppError(e) && e.code === "git_failed") throw notRepo(e.message);
    throw e;
  }
  if (lines[0] === "true") throw notRepo("it is a bare repository");
  if (lines[1] !== "true") throw notRepo("it is inside a git directory, not a work tree");
  const commonDir = await realpath(resolve(real, lines[2] ?? ""));
  const top = await git.run(["rev-parse", "--show-toplevel"], { cwd: real });
  if ((await realpath(top.stdout.replace(/\n$/, ""))) !== real) throw notRepo("it is a subdirectory of the repository at " + top.stdout.trim());

  const [defaultBranch, originUrl] = await Promise.all([currentOrDefaultBranch(git, real), originOf(git, real)]);
  return { path: real, commonDir, defaultBranch, originUrl };
}

async function currentOrDefaultBranch(git: GitRunner, repoPath: string): Promise<string> {
  const head = await git.run(["symbolic-ref", "--quiet", "--short", "HEAD"], { cwd: repoPath, okExitCodes: [1] });
  if (head.exitCode === 0 && head.stdout.trim()) return head.stdout.trim();
  const refs = await git.run(["for-each-ref", "--format=%(refname:lstrip=2)", "refs/heads/"], { cwd: repoPath });
  const branches = refs.stdout.split("\n").filter((b) => b.length > 0);
  const pick = branches.find((b) => b === "main") ?? branches.find((b) => b === "master") ?? branches[0];
  if (pick === undefined) throw new AppError("base_branch_not_found", `${repoPath} has a detached HEAD and no local branch; pass defaultBranch`);
  return pick;
}

async function originOf(git: GitRunner, repoPath: string): Promise<string | null> {
  const r = await git.run(["config", "--get", "remote.origin.url"], { cwd: repoPath, okExitCodes: [1] });
  const url = r.stdout.trim();
  return r.exitCode === 0 && url ? url : null;
}

/** Whether `refs/heads/<branch>` exists. The name is part of a full ref, so it can never be an option. */
export async function branchExists(git: GitRunner, repoPath: string, branch: string): Promise<boolean> {
  const r = await git.run(["show-ref", "--verify", "--quiet", `refs/heads/${branch}`], { cwd: repoPath, okExitCodes: [1] });
  return r.exitCode === 0;
}

/** The commit `ref` names, or null when it names none. `--end-of-options` keeps `ref` from being an option (SEC-3). */
export async function resolveCommit(git: GitRunner, repoPath: GitCwd, ref: string): Promise<string | null> {
  const r = await git.run(["rev-parse", "--verify", "--quiet", "--end-of-options", `${ref}^{commit}`], { cwd: repoPath, okExitCodes: [1, 128] });
  const sha = r.stdout.trim();
  return r.exitCode === 0 && /^[0-9a-f]{40,64}$/.test(sha) ? sha : null;
}

/**
 * The fully qualified ref a base branch name stands for in `repoPath`: `refs/heads/<base>` or
 * `refs/remotes/origin/<base>` (a remote repository's managed clone often has only the latter;
 * git's own lookup of a bare name never finds it). `preferRemote` puts the fetched
 * `origin/<base>` first — the freshest base of a remote repository. The bare name when neither
 * exists, so the caller's git command fails with its usual error.
 */
export async function resolveBaseRef(git: GitRunner, repoPath: GitCwd, baseBranch: string, opts: { preferRemote: boolean }): Promise<string> {
  const heads = `refs/heads/${baseBranch}`;
  const remote = `refs/remotes/origin/${baseBranch}`;
  for (const ref of opts.preferRemote ? [remote, heads] : [heads, remote]) {
    if ((await resolveCommit(git, repoPath, ref)) !== null) return ref;
  }
  return baseBranch;
}
