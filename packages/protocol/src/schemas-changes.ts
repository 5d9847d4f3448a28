import { z } from "zod";
import { WorktreeState } from "./schemas-environments.js";

/** Changed files and diffs of a task's worktrees of the HTTP API. Fields may be added; none may be renamed (clients depend on the names). */

export const FileStatus = z.enum(["added", "modified", "deleted", "renamed", "untracked", "conflicted", "typechange"]);
export const ChangedFile = z.object({
  path: z.string(),
  oldPath: z.string().optional(),
  status: FileStatus,
  staged: z.boolean(),
  unstaged: z.boolean(),
  additions: z.number().int(),
  deletions: z.number().int(),
  binary: z.boolean(),
  /**
   * RV-7: the branch's commits change this file (it differs between the merge-base and HEAD).
   * With `staged`/`unstaged` also set, the file is in both review sections: committed
   * (`?scope=committed`) and uncommitted (`?scope=uncommitted`).
   */
  committed: z.boolean().optional(),
});
export type ChangedFile = z.infer<typeof ChangedFile>;

/** RV-7: which part of a file's change a patch shows; `all` (default) is merge-base → working tree. */
export const DiffScope = z.enum(["all", "committed", "uncommitted"]);
export type DiffScope = z.infer<typeof DiffScope>;

export const RepositoryChanges = z.object({
  repositoryId: z.string(),
  /** Which slot, when one repository is attached on several branches (WT-8). */
  worktreeId: z.string().optional(),
  branchSlug: z.string().optional(),
  worktreePath: z.string(),
  branch: z.string(),
  baseBranch: z.string(),
  mergeBase: z.string().nullable(),
  ahead: z.number().int(),
  behind: z.number().int(),
  files: z.array(ChangedFile),
  truncated: z.boolean().optional(),
  error: z.string().optional(),
  /** Seed 000: per repository, fail closed and say why — never an empty list standing for "unknown". */
  status: WorktreeState.optional(),
  /** The typed error code when `status` is not `ok` (or git failed): e.g. `workspace_missing`, `workspace_reuse_unsafe`. */
  errorCode: z.string().optional(),
  /** What fixes it, e.g. `grove task restore <taskId>`. */
  action: z.string().optional(),
});
export type RepositoryChanges = z.infer<typeof RepositoryChanges>;

export const Changes = z.object({ taskId: z.string(), repositories: z.array(RepositoryChanges) });
export type Changes = z.infer<typeof Changes>;

export const FileDiff = z.object({
  repositoryId: z.string(),
  path: z.string(),
  scope: DiffScope.optional(),
  patch: z.string(),
  binary: z.boolean(),
  truncated: z.boolean(),
});
export type FileDiff = z.infer<typeof FileDiff>;
