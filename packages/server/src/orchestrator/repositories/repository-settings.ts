import type { PatchRepositoryBody } from "@grove/protocol";
import { AppError } from "../../domain/errors.js";
import { assertBranchName, renderBranchName } from "../../domain/layout.js";
import type { RepositoryRecord } from "../../domain/records.js";
import { assertSparseDirs } from "../../domain/sparse-checkout.js";
import { branchExists } from "../../git/repository.js";
import type { Deps } from "../context.js";
import { readablePathOnThisRunner } from "../refresh/repository-on-runner.js";

/**
 * WT-9: a copy-files glob is relative to the checkout and stays inside it: no absolute
 * pattern, no `..` segment, no `.git` segment (the repository's own metadata is never copied).
 */
export function assertCopyGlobs(globs: readonly string[]): void {
  for (const g of globs) {
    const segments = g.split("/");
    const bad = g.startsWith("/") || g.includes("\\") || g.includes("\0") || segments.some((s) => s === ".." || s === "." || s === "" || s === ".git");
    if (bad)
      throw new AppError(
        "invalid_request",
        `copyFiles pattern ${JSON.stringify(g)} must be a relative glob inside the checkout (no '..', '.git', leading '/')`,
        { field: "copyFiles" },
      );
  }
}

/**
 * Validates the settings shared by `POST` and `PATCH /repositories` before anything is written
 * (SEC-3); `repoPath` null skips the default branch's existence check only.
 */
export async function validateSettings(deps: Pick<Deps, "git">, repoPath: string | null, s: PatchRepositoryBody): Promise<void> {
  if (s.defaultBranch !== undefined) {
    assertBranchName(s.defaultBranch, "defaultBranch");
    // null: no copy of the repository on this runner to look in (see patchRepositorySettings).
    if (repoPath !== null && !(await branchExists(deps.git, repoPath, s.defaultBranch))) {
      throw new AppError("base_branch_not_found", `branch ${s.defaultBranch} does not exist in ${repoPath}`, { field: "defaultBranch" });
    }
  }
  // Rendering validates the result against git's ref rules (WT-2).
  if (s.branchTemplate !== undefined) renderBranchName(s.branchTemplate, { title: "probe", taskId: "task_probe", suffix: "abc123" });
  if (s.copyFiles !== undefined) assertCopyGlobs(s.copyFiles);
  if (s.sparseCheckout !== undefined) assertSparseDirs(s.sparseCheckout);
}

/**
 * `PATCH /repositories/:id` (WT-9): default branch, branch template, `pullBeforeWorktree`,
 * copy-files globs, setup script and the sparse-checkout cone (WT-11). Settings apply to worktrees created from now on;
 * existing worktrees are never touched. Nothing is written unless every field is valid.
 */
export async function patchRepositorySettings(
  deps: Pick<Deps, "store" | "git" | "home" | "now" | "remote">,
  id: string,
  body: PatchRepositoryBody,
): Promise<RepositoryRecord> {
  const repo = await deps.store.getRepository(id);
  if (!repo) throw new AppError("not_found", `repository ${id} not found`, { id });
  // Checked in this runner's own copy (see readablePathOnThisRunner).
  await validateSettings(deps, readablePathOnThisRunner(deps, repo), body);
  const updated = await deps.store.updateRepositorySettings(id, body, deps.now());
  if (!updated) throw new AppError("not_found", `repository ${id} not found`, { id });
  return updated;
}
