import type { EnvironmentRepoRecord, WorktreeTuple } from "./records.js";

/**
 * One slot of a launch result. `worktree` is present only for a *concrete* materialization
 * (create, reuse or recreate that returned a worktree id); without it the result is
 * inventory-only and may never touch the physical tuple (ENV-2).
 */
export interface SlotResult {
  repositoryId: string;
  branchSlug: string;
  baseBranch: string;
  position: number;
  errorMessage: string | null;
  worktree?: WorktreeTuple;
}

export type RowPatch = Partial<
  Pick<
    EnvironmentRepoRecord,
    "branchSlug" | "baseBranch" | "position" | "errorMessage" | "worktreeId" | "worktreePath" | "worktreeBranch" | "status" | "deletedAt"
  >
>;

export type MergeOp =
  | { kind: "update"; rowId: string; patch: RowPatch }
  | { kind: "insert"; row: Omit<EnvironmentRepoRecord, "id" | "environmentId" | "createdAt" | "updatedAt"> };

function isConcrete(t: WorktreeTuple | undefined): t is WorktreeTuple {
  return t !== undefined && t.worktreeId !== "" && t.worktreePath !== "" && t.worktreeBranch !== "";
}

/**
 * ENV-2 / ENV-3: how a launch result merges into the persisted rows, as a list of row
 * operations (pure; the store applies them in one transaction).
 *
 * - Rows match by `(repositoryId, branchSlug)`; a row with an empty slug for the same
 *   repository is adopted and given the slug; otherwise a row is inserted.
 * - A concrete result replaces `worktreeId`, `worktreePath`, `worktreeBranch` together and
 *   revives a tombstoned row; an inventory-only result changes slug, base, position and
 *   error only. An empty string never clears anything.
 * - Rows the result does not mention are left alone.
 */
export function planEnvironmentMerge(existing: readonly EnvironmentRepoRecord[], results: readonly SlotResult[]): MergeOp[] {
  const ops: MergeOp[] = [];
  const claimed = new Set<string>();
  for (const r of results) {
    const match =
      existing.find((row) => !claimed.has(row.id) && row.repositoryId === r.repositoryId && row.branchSlug === r.branchSlug) ??
      existing.find((row) => !claimed.has(row.id) && row.repositoryId === r.repositoryId && row.branchSlug === "");
    const concrete = isConcrete(r.worktree) ? r.worktree : undefined;
    if (match) {
      claimed.add(match.id);
      const patch: RowPatch = { position: r.position, errorMessage: r.errorMessage };
      if (r.branchSlug !== "") patch.branchSlug = r.branchSlug;
      if (r.baseBranch !== "") patch.baseBranch = r.baseBranch;
      if (concrete) {
        patch.worktreeId = concrete.worktreeId;
        patch.worktreePath = concrete.worktreePath;
        patch.worktreeBranch = concrete.worktreeBranch;
        patch.status = "active";
        patch.deletedAt = null;
      }
      ops.push({ kind: "update", rowId: match.id, patch });
    } else {
      ops.push({
        kind: "insert",
        row: {
          repositoryId: r.repositoryId,
          branchSlug: r.branchSlug,
          baseBranch: r.baseBranch,
          position: r.position,
          errorMessage: r.errorMessage,
          worktreeId: concrete?.worktreeId ?? null,
          worktreePath: concrete?.worktreePath ?? null,
          worktreeBranch: concrete?.worktreeBranch ?? null,
          status: "active",
          deletedAt: null,
        },
      });
    }
  }
  return ops;
}
