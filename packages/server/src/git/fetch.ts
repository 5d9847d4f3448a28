import { AppError, isAppError } from "../domain/errors.js";
import { assertBranchName } from "../domain/layout.js";
import type { GitRunner } from "./runner.js";

/** What a WT-3 fetch of the base brought back. */
export interface FetchedBase {
  /** The commit `origin` has for the base branch (R of WT-3). */
  commit: string;
}

/**
 * WT-3: fetches `refs/heads/<branch>` from the repository's `origin`, non-interactively
 * (`network: true`: batch-mode ssh, no askpass, no terminal prompt), without moving any ref:
 * `--refmap=` turns off the opportunistic update of `refs/remotes/origin/*`, so a diverged base
 * leaves every ref where it was; the answer is read from FETCH_HEAD, which the caller's
 * repository lock keeps ours until read.
 *
 * Errors (always naming no user input in `details.args`): no origin → `refresh_failed`
 * (`reason: "no_origin"`); the remote has no such branch → `refresh_missing_ref`;
 * a timeout → `refresh_timeout`; anything else (unreachable host, auth) →
 * `refresh_network_failed` with git's last stderr line.
 */
export async function fetchBaseFromOrigin(git: GitRunner, repoPath: string, branch: string, opts: { timeoutMs?: number } = {}): Promise<FetchedBase> {
  assertBranchName(branch, "baseBranch");
  const origin = await git.run(["config", "--get", "remote.origin.url"], { cwd: repoPath, okExitCodes: [1] });
  if (origin.exitCode !== 0 || origin.stdout.trim() === "") {
    throw new AppError("refresh_failed", `repository at ${repoPath} has no origin to fetch ${branch} from`, { reason: "no_origin" });
  }
  try {
    await git.run(["fetch", "--no-tags", "--no-recurse-submodules", "--refmap=", "origin", "--", `refs/heads/${branch}`], {
      cwd: repoPath,
      network: true,
      ...(opts.timeoutMs !== undefined && { timeoutMs: opts.timeoutMs }),
    });
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    if (/couldn't find remote ref/i.test(message)) {
      throw new AppError("refresh_missing_ref", `origin has no branch ${branch}: ${message}`, { branch });
    }
    if (isAppError(e) && e.code === "git_timeout") throw new AppError("refresh_timeout", `fetching ${branch} from origin timed out: ${message}`, { branch });
    if (isAppError(e) && e.code === "git_failed") throw new AppError("refresh_network_failed", `fetching ${branch} from origin failed: ${message}`, { branch });
    throw e;
  }
  const head = await git.run(["rev-parse", "--verify", "--quiet", "FETCH_HEAD^{commit}"], { cwd: repoPath, okExitCodes: [1] });
  const commit = head.stdout.trim();
  if (head.exitCode !== 0 || !/^[0-9a-f]{40,64}$/.test(commit)) {
    throw new AppError("refresh_failed", `fetching ${branch} from origin left no FETCH_HEAD`, { reason: "no_fetch_head", branch });
  }
  return { commit };
}
