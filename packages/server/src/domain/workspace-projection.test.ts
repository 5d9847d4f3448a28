import { describe, expect, it } from "vitest";
import type { EnvironmentRecord, EnvironmentRepoRecord } from "./records.js";
import { projectWorkspace } from "./workspace-projection.js";

const env: EnvironmentRecord = {
  id: "env1",
  taskId: "t",
  status: "ready",
  workspacePath: "/root/x",
  runnerId: "r",
  materializerSessionId: null,
  createdAt: "",
  updatedAt: "",
};
const row = (over: Partial<EnvironmentRepoRecord>): EnvironmentRepoRecord => ({
  id: "r1",
  environmentId: "env1",
  repositoryId: "repo1",
  branchSlug: "main",
  worktreeId: "W",
  worktreePath: "/root/x/api",
  worktreeBranch: "B",
  baseBranch: "main",
  position: 0,
  status: "active",
  errorMessage: null,
  createdAt: "",
  updatedAt: "",
  deletedAt: null,
  ...over,
});

describe("ENV-5 workspace projection", () => {
  it("ENV-5 one slot → that worktree; several → the task root", () => {
    expect(projectWorkspace(env, [row({})], "/root/x").workspacePath).toBe("/root/x/api");
    const two = projectWorkspace(env, [row({ id: "b", position: 1, worktreePath: "/root/x/web", repositoryId: "repo2" }), row({})], "/root/x");
    expect(two.workspacePath).toBe("/root/x");
    expect(two.slots.map((s) => s.worktreePath)).toEqual(["/root/x/api", "/root/x/web"]);
  });

  it("ENV-5 missing or ambiguous inventory fails closed", () => {
    expect(() => projectWorkspace(undefined, [], "/r")).toThrow(/no environment/);
    expect(() => projectWorkspace({ ...env, status: "creating" }, [row({})], "/r")).toThrow(/creating/);
    expect(() => projectWorkspace(env, [], "/r")).toThrow(/no repository rows/);
    expect(() => projectWorkspace(env, [row({ worktreeId: null })], "/r")).toThrow(/no worktree identity/);
    expect(() => projectWorkspace(env, [row({}), row({ id: "b", repositoryId: "repo2" })], "/r")).toThrow(/two slots/);
    expect(() => projectWorkspace(env, [row({ status: "deleted" })], "/r")).toThrow(/no repository rows/);
  });
});
