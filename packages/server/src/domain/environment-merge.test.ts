import { describe, expect, it } from "vitest";
import { planEnvironmentMerge, type SlotResult } from "./environment-merge.js";
import type { EnvironmentRepoRecord } from "./records.js";

const row = (over: Partial<EnvironmentRepoRecord>): EnvironmentRepoRecord => ({
  id: "row1",
  environmentId: "env1",
  repositoryId: "repo1",
  branchSlug: "main",
  worktreeId: "W",
  worktreePath: "/p",
  worktreeBranch: "B",
  baseBranch: "main",
  position: 4,
  status: "active",
  errorMessage: "stale",
  createdAt: "t0",
  updatedAt: "t0",
  deletedAt: null,
  ...over,
});

const apply = (rows: EnvironmentRepoRecord[], results: SlotResult[]) => {
  const ops = planEnvironmentMerge(rows, results);
  let out = [...rows];
  for (const op of ops) {
    if (op.kind === "update") out = out.map((r) => (r.id === op.rowId ? { ...r, ...op.patch } : r));
    else out.push({ ...op.row, id: `new${out.length}`, environmentId: "env1", createdAt: "t1", updatedAt: "t1" });
  }
  return out;
};

describe("ENV-2 / ENV-3 merge of launch results", () => {
  it("ENV-2 an inventory-only result keeps the physical tuple, updates position and clears the error", () => {
    const out = apply([row({})], [{ repositoryId: "repo1", branchSlug: "main", baseBranch: "main", position: 0, errorMessage: null }]);
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({ worktreeId: "W", worktreePath: "/p", worktreeBranch: "B", position: 0, errorMessage: null });
  });

  it("ENV-2 empty strings never clear the tuple", () => {
    const out = apply(
      [row({})],
      [
        {
          repositoryId: "repo1",
          branchSlug: "main",
          baseBranch: "",
          position: 1,
          errorMessage: null,
          worktree: { worktreeId: "", worktreePath: "", worktreeBranch: "" },
        },
      ],
    );
    expect(out[0]).toMatchObject({ worktreeId: "W", worktreePath: "/p", worktreeBranch: "B", baseBranch: "main" });
  });

  it("ENV-2 a concrete result replaces id, path and branch together", () => {
    const out = apply(
      [row({})],
      [
        {
          repositoryId: "repo1",
          branchSlug: "main",
          baseBranch: "main",
          position: 0,
          errorMessage: null,
          worktree: { worktreeId: "W2", worktreePath: "/p2", worktreeBranch: "B2" },
        },
      ],
    );
    expect(out[0]).toMatchObject({ worktreeId: "W2", worktreePath: "/p2", worktreeBranch: "B2" });
  });

  it("ENV-2 a concrete result revives a tombstoned row (unarchive)", () => {
    const out = apply(
      [row({ status: "deleted", deletedAt: "t0" })],
      [
        {
          repositoryId: "repo1",
          branchSlug: "main",
          baseBranch: "main",
          position: 0,
          errorMessage: null,
          worktree: { worktreeId: "W", worktreePath: "/p", worktreeBranch: "B" },
        },
      ],
    );
    expect(out[0]).toMatchObject({ status: "active", deletedAt: null });
  });

  it("ENV-3 a flat row (empty slug) is adopted by the first slugged result: one row, not two", () => {
    const out = apply([row({ branchSlug: "" })], [{ repositoryId: "repo1", branchSlug: "feature", baseBranch: "main", position: 0, errorMessage: null }]);
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({ branchSlug: "feature", worktreeId: "W" });
  });

  it("ENV-3 an unknown slot is inserted; rows not mentioned are left alone", () => {
    const other = row({ id: "row2", repositoryId: "repo2", branchSlug: "dev", position: 7 });
    const out = apply([row({}), other], [{ repositoryId: "repo1", branchSlug: "second", baseBranch: "main", position: 1, errorMessage: null }]);
    expect(out).toHaveLength(3);
    expect(out.find((r) => r.id === "row2")).toEqual(other);
    expect(out.find((r) => r.id === "row1")).toMatchObject({ branchSlug: "main", position: 4 });
    expect(out[2]).toMatchObject({ branchSlug: "second", worktreeId: null, worktreePath: null, worktreeBranch: null });
  });
});
