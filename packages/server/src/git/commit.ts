import { AppError } from "../domain/errors.js";
import type { GitRunner } from "./runner.js";
import type { GitCwd } from "./worktree-link.js";
import { personIdentityEnv, type GitIdentity } from "./identity.js";

const ANY_FAILURE = Array.from({ length: 255 }, (_, i) => i + 1);

/** Whether the worktree has uncommitted changes (tracked or untracked), within `paths` when given. */
export async function hasUncommitted(git: GitRunner, cwd: GitCwd, paths?: readonly string[]): Promise<boolean> {
  const r = await git.run(["--literal-pathspecs", "status", "--porcelain=v1", "-z", "--untracked-files=all", "--", ...(paths ?? ["."])], { cwd });
  return r.stdout.length > 0;
}

/**
 * Commits a worktree's uncommitted changes — all of them, or only `paths` (literal pathspecs,
 * already confined by the caller) — as the person's git identity (`personIdentityEnv`: git's
 * configured one, else `identity`, else `git_identity_missing` before anything is staged). Hooks run
 * unless `noVerify` (only ever on a person's explicit request). Answers the new commit, or null
 * when there was nothing to commit. A refused commit (hook, missing identity) →
 * `commit_rejected` with git's output, and the index is put back as it was: staging for the
 * attempt never outlives it.
 */
export async function commitChanges(
  git: GitRunner,
  input: { cwd: GitCwd; message: string; paths?: readonly string[]; noVerify?: boolean; identity?: GitIdentity | undefined },
): Promise<string | null> {
  const { cwd, paths } = input;
  if (!(await hasUncommitted(git, cwd, paths))) return null;
  const env = await personIdentityEnv(git, cwd, input.identity);
  const indexBefore = (await git.run(["write-tree"], { cwd })).stdout.trim();
  await git.run(["--literal-pathspecs", "add", "-A", "--", ...(paths ?? ["."])], { cwd });
  const args = ["--literal-pathspecs", "commit", "--quiet", "--cleanup=strip", "-F", "-", ...(input.noVerify ? ["--no-verify"] : [])];
  if (paths) args.push("--only", "--", ...paths);
  const r = await git.run(args, { cwd, env, input: input.message, okExitCodes: ANY_FAILURE, timeoutMs: 600_000, hooks: true });
  if (r.exitCode !== 0) {
    await git.run(["read-tree", indexBefore], { cwd });
    const output = `${r.stdout}${r.stderr}`.trim().slice(-4000);
    throw new AppError("commit_rejected", `git refused the commit (exit ${r.exitCode}): ${output.split("\n").filter(Boolean).pop() ?? "no message"}`, {
      output,
    });
  }
  return (await git.run(["rev-parse", "--verify", "HEAD^{commit}"], { cwd })).stdout.trim();
}
