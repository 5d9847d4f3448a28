import { AppError } from "../domain/errors.js";
import type { GitRunner } from "./runner.js";

/** Which side WT-3's base selection chose. */
export type BaseChoice = { startPoint: string; chose: "fetched" | "local" | "same" };

async function isAncestor(git: GitRunner, repoPath: string, ancestor: string, of: string): Promise<boolean> {
  // Both are full hex object names (never options); exit 1 = "not an ancestor".
  const r = await git.run(["merge-base", "--is-ancestor", ancestor, of], { cwd: repoPath, okExitCodes: [1] });
  return r.exitCode === 0;
}

/**
 * WT-3 base selection after a fetch, with local base L and fetched base R (commit ids):
 * R contains L → start at R; L contains R → start at L (keeps unpushed local commits);
 * otherwise (diverged) → `refresh_base_diverged`. Read-only: no ref is moved either way.
 */
export async function selectBase(git: GitRunner, repoPath: string, input: { local: string; fetched: string; branch: string }): Promise<BaseChoice> {
  const { local, fetched, branch } = input;
  if (local === fetched) return { startPoint: local, chose: "same" };
  if (await isAncestor(git, repoPath, local, fetched)) return { startPoint: fetched, chose: "fetched" };
  if (await isAncestor(git, repoPath, fetched, local)) return { startPoint: local, chose: "local" };
  throw new AppError(
    "refresh_base_diverged",
    `local ${branch} (${local.slice(0, 12)}) and origin's ${branch} (${fetched.slice(0, 12)}) have diverged; reconcile them first`,
    {
      branch,
      local,
      fetched,
    },
  );
}
