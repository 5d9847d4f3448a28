import { AppError } from "../domain/errors.js";
import type { GitRunner } from "./runner.js";
import type { GitCwd } from "./worktree-link.js";

/** A git identity: who a commit is by. */
export interface GitIdentity {
  name: string;
  email: string;
}

async function configValue(git: GitRunner, cwd: GitCwd, key: string): Promise<string | null> {
  const r = await git.run(["config", "--get", key], { cwd, okExitCodes: [1] });
  const v = r.stdout.trim();
  return r.exitCode === 0 && v ? v : null;
}

/**
 * The identity of a commit Grove makes for the person (commit, update from base, merge), as the
 * environment of that git call: the git identity configured where the commit is made (repository,
 * then global config: `{}`, git uses it itself), else `fallback` (GROVE_GIT_AUTHOR_NAME /
 * GROVE_GIT_AUTHOR_EMAIL) as author and committer, else `409 git_identity_missing` naming the
 * fix — asked before anything is staged. Git's own guess from the user and host name is never used.
 */
export async function personIdentityEnv(git: GitRunner, cwd: GitCwd, fallback: GitIdentity | undefined): Promise<Record<string, string>> {
  const [name, email] = await Promise.all([configValue(git, cwd, "user.name"), configValue(git, cwd, "user.email")]);
  if (name && email) return {};
  if (fallback) {
    return { GIT_AUTHOR_NAME: fallback.name, GIT_AUTHOR_EMAIL: fallback.email, GIT_COMMITTER_NAME: fallback.name, GIT_COMMITTER_EMAIL: fallback.email };
  }
  const missing = [...(name ? [] : ["user.name"]), ...(email ? [] : ["user.email"])];
  throw new AppError(
    "git_identity_missing",
    `no git identity for the person's commit (${missing.join(" and ")} not configured); nothing was staged or committed`,
    {
      missing,
      fix: 'git config --global user.name "Your Name" && git config --global user.email you@example.com (or start Grove with GROVE_GIT_AUTHOR_NAME and GROVE_GIT_AUTHOR_EMAIL)',
    },
  );
}
