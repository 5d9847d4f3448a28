import { join } from "node:path";
import { readPlainText } from "./plain-file.js";

/**
 * The branch a rebase stopped in a worktree is rebasing (`refs/heads/…`), or null when no rebase
 * is in progress. During a rebase HEAD is detached by design; a worktree whose stopped rebase
 * (update from base with kept conflicts) belongs to its own branch is still that
 * branch's worktree (WT-5/SES-3 must not call it foreign). `gitDir` is the worktree's own git dir.
 */
export async function rebasingBranch(gitDir: string): Promise<string | null> {
  for (const dir of ["rebase-merge", "rebase-apply"]) {
    // Not this kind of rebase when there is no such (plain) file.
    const name = (await readPlainText(join(gitDir, dir, "head-name")))?.trim();
    if (name?.startsWith("refs/heads/")) return name;
  }
  return null;
}
