import { realpath, stat } from "node:fs/promises";
import { isAbsolute, join, resolve } from "node:path";
import { AppError, isAppError } from "../domain/errors.js";
import { isValidBranchName } from "../domain/layout.js";
import { readPlainText } from "./plain-file.js";
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
  /**
   * The local branch HEAD is on when HEAD names a commit (null when detached or unborn): that
   * branch exists, so registering it as the default branch needs no second look.
   */
  checkedOut: string | null;
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
  // The checkout's facts and its origin in two git processes. The rev-parse fails (128) in
  // every case it cannot answer (bare, a .git dir, an unborn HEAD, not a repository): those take
  // the slower steps below, which also name what is wrong — before any error of the origin's read.
  const origin = originOf(git, real).then(
    (url) => ({ url }),
    (error: unknown) => ({ error }),
  );
  const facts = await git.run([...FACTS, "--show-toplevel", "--symbolic-full-name", "HEAD"], { cwd: real, okExitCodes: [128] });
  const lines = facts.exitCode === 0 ? facts.stdout.split("\n") : await slowFacts(git, real, notRepo);
  if (lines[0] === "true") throw notRepo("it is a bare repository");
  if (lines[1] !== "true") throw notRepo("it is inside a git directory, not a work tree");
  const commonDir = await realpath(resolve(real, lines[2] ?? ""));
  const top = lines[3] ?? "";
  if ((await realpath(top)) !== real) throw notRepo("it is a subdirectory of the repository at " + top);
  git.rememberCommonDir(real, commonDir);
  const head = lines[4];
  const checkedOut = head?.startsWith("refs/heads/") ? head.slice("refs/heads/".length) : null;
  const defaultBranch = checkedOut ?? (head === "HEAD" ? await firstLocalBranch(git, real) : await currentOrDefaultBranch(git, real));
  const read = await origin;
  if ("error" in read) throw read.error;
  return { path: real, commonDir, defaultBranch, originUrl: read.url, checkedOut };
}

const FACTS = ["rev-parse", "--path-format=absolute", "--is-bare-repository", "--is-inside-work-tree", "--git-common-dir"];

/** The facts line by line when the one rev-parse could not give them all; HEAD is left out. */
async function slowFacts(git: GitRunner, real: string, notRepo: (why: string) => AppError): Promise<string[]> {
  let lines: string[];
  try {
    lines = (await git.run(FACTS, { cwd: real })).stdout.split("\n");
  } catch (e) {
    if (isAppError(e) && e.code === "git_failed") throw notRepo(e.message);
    throw e;
  }
  if (lines[0] === "true" || lines[1] !== "true") return lines;
  const top = await git.run(["rev-parse", "--show-toplevel"], { cwd: real });
  return [...lines.slice(0, 3), top.stdout.replace(/\n$/, "")];
}

async function currentOrDefaultBranch(git: GitRunner, repoPath: string): Promise<string> {
  const head = await git.run(["symbolic-ref", "--quiet", "--short", "HEAD"], { cwd: repoPath, okExitCodes: [1] });
  if (head.exitCode === 0 && head.stdout.trim()) return head.stdout.trim();
  return firstLocalBranch(git, repoPath);
}

/** A detached checkout's default: `main`, else `master`, else its first local branch. */
async function firstLocalBranch(git: GitRunner, repoPath: string): Promise<string> {
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

/** A loose ref file naming an object (SHA-1 or SHA-256). */
const LOOSE_REF = /^(?:[0-9a-f]{40}|[0-9a-f]{64})\n?$/;

/**
 * Whether `refs/heads/<branch>` exists. A loose ref file naming an object answers without a git
 * process: git reads it before any packed entry and removes it with the branch. A branch that is
 * only packed, a symbolic one, a reftable repository or a name outside git's rules asks `git
 * show-ref`; there the name is part of a full ref, so it can never be an option.
 */
export async function branchExists(git: GitRunner, repoPath: string, branch: string): Promise<boolean> {
  if (isValidBranchName(branch)) {
    const common = await git.commonDir(repoPath).catch(() => null);
    const loose = common === null ? null : await readPlainText(join(common, "refs", "heads", branch), 256);
    if (loose !== null && LOOSE_REF.test(loose)) return true;
  }
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
