import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SlotResult } from "../../src/domain/environment-merge.js";
import { AppError } from "../../src/domain/errors.js";
import type { EnvironmentRecord, RepositoryRecord, TaskRecord } from "../../src/domain/records.js";
import type { Store } from "../../src/store/store.js";
import { DATABASES, openTestStore } from "../fixture/db.js";
import { repository, seedTask, session, tick } from "./records.js";

describe.each(DATABASES)("environment rows on %s", (kind) => {
  let store: Store;
  let cleanup: () => Promise<void>;
  let repo: RepositoryRecord;
  let task: TaskRecord;
  let env: EnvironmentRecord;

  beforeEach(async () => {
    ({ store, cleanup } = await openTestStore(kind));
    ({ repo, task } = await seedTask(store));
    ({ environment: env } = await store.reserveLaunch({ taskId: task.id, session: session(task.id), runnerId: "runner-a", now: tick() }));
  });
  afterEach(() => cleanup());

  const slot = (over: Partial<SlotResult> = {}): SlotResult => ({
    repositoryId: repo.id,
    branchSlug: "",
    baseBranch: "main",
    position: 0,
    errorMessage: null,
    ...over,
  });
  const tuple = (n: string) => ({ worktreeId: `wt-${n}`, worktreePath: `/grove/tasks/t/${n}`, worktreeBranch: `grove/${n}` });

  it("ENV-2 an inventory-only result keeps the tuple, updates position and clears the error", async () => {
    const [row] = await store.mergeEnvironmentRepos(env.id, [slot({ branchSlug: "api", position: 4, errorMessage: "stale", worktree: tuple("W") })], tick());
    expect(row).toMatchObject({ worktreeId: "wt-W", worktreePath: "/grove/tasks/t/W", worktreeBranch: "grove/W", position: 4, errorMessage: "stale" });

    const after = await store.mergeEnvironmentRepos(env.id, [slot({ branchSlug: "api", position: 0, errorMessage: null })], tick());
    expect(after).toHaveLength(1);
    expect(after[0]).toMatchObject({
      id: row!.id,
      worktreeId: "wt-W",
      worktreePath: "/grove/tasks/t/W",
      worktreeBranch: "grove/W",
      position: 0,
      errorMessage: null,
    });
  });

  it("ENV-2 an empty worktree id never clears the tuple", async () => {
    await store.mergeEnvironmentRepos(env.id, [slot({ branchSlug: "api", worktree: tuple("W") })], tick());
    const after = await store.mergeEnvironmentRepos(
      env.id,
      [slot({ branchSlug: "api", worktree: { worktreeId: "", worktreePath: "", worktreeBranch: "" } })],
      tick(),
    );
    expect(after[0]).toMatchObject({ worktreeId: "wt-W", worktreePath: "/grove/tasks/t/W", worktreeBranch: "grove/W" });
  });

  it("ENV-2 a concrete result replaces id, path and branch together", async () => {
    const [row] = await store.mergeEnvironmentRepos(env.id, [slot({ branchSlug: "api", worktree: tuple("W") })], tick());
    const after = await store.mergeEnvironmentRepos(env.id, [slot({ branchSlug: "api", worktree: tuple("W2") })], tick());
    expect(after).toHaveLength(1);
    expect(after[0]).toMatchObject({ id: row!.id, worktreeId: "wt-W2", worktreePath: "/grove/tasks/t/W2", worktreeBranch: "grove/W2", status: "active" });
  });

  it("ENV-3 a flat row (empty slug) is adopted by the first slugged result: one row, not two", async () => {
    const [flat] = await store.mergeEnvironmentRepos(env.id, [slot({ branchSlug: "", worktree: tuple("F") })], tick());
    expect(flat!.branchSlug).toBe("");
    const after = await store.mergeEnvironmentRepos(env.id, [slot({ branchSlug: "main-slot" })], tick());
    expect(after).toHaveLength(1);
    expect(after[0]).toMatchObject({ id: flat!.id, branchSlug: "main-slot", worktreeId: "wt-F" });
  });

  it("ENV-3 rows the result does not mention are left alone; new slots are inserted", async () => {
    const other = repository();
    await store.insertRepository(other);
    const first = await store.mergeEnvironmentRepos(
      env.id,
      [
        slot({ branchSlug: "a", position: 0, worktree: tuple("A") }),
        { ...slot({ branchSlug: "b", position: 1, worktree: tuple("B") }), repositoryId: other.id },
      ],
      tick(),
    );
    expect(first).toHaveLength(2);
    const rowB = first.find((r) => r.branchSlug === "b")!;

    const after = await store.mergeEnvironmentRepos(
      env.id,
      [slot({ branchSlug: "a", position: 0, errorMessage: "boom" }), slot({ branchSlug: "c", position: 2 })],
      tick(),
    );
    expect(after.map((r) => r.branchSlug)).toEqual(["a", "b", "c"]);
    expect(after.find((r) => r.id === rowB.id)).toEqual(rowB);
    expect(after.find((r) => r.branchSlug === "c")).toMatchObject({ worktreeId: null, worktreePath: null, worktreeBranch: null, status: "active" });
    expect(after.find((r) => r.branchSlug === "c")!.id).toMatch(/^envrepo_/);
  });

  it("ENV-4 a tombstone keeps the tuple; a concrete result revives the row", async () => {
    const [row] = await store.mergeEnvironmentRepos(env.id, [slot({ branchSlug: "api", worktree: tuple("W") })], tick());
    const at = tick();
    await store.tombstoneEnvironmentRepo(row!.id, at);
    const [dead] = await store.listEnvironmentRepos(env.id);
    expect(dead).toMatchObject({
      id: row!.id,
      status: "deleted",
      deletedAt: at,
      worktreeId: "wt-W",
      worktreePath: "/grove/tasks/t/W",
      worktreeBranch: "grove/W",
    });

    const [revived] = await store.mergeEnvironmentRepos(env.id, [slot({ branchSlug: "api", worktree: tuple("W") })], tick());
    expect(revived).toMatchObject({ id: row!.id, status: "active", deletedAt: null });
  });

  it("ENV-1 setEnvironmentStatus is a compare-and-set and clears the materializer", async () => {
    expect(env.materializerSessionId).not.toBeNull();
    expect(await store.setEnvironmentStatus(env.id, ["ready"], "failed", {}, tick())).toBeUndefined();
    const ready = await store.setEnvironmentStatus(env.id, ["creating"], "ready", { workspacePath: "/grove/tasks/t" }, tick());
    expect(ready).toMatchObject({ status: "ready", workspacePath: "/grove/tasks/t", materializerSessionId: null });
    expect(await store.setEnvironmentStatus(env.id, ["creating"], "failed", {}, tick())).toBeUndefined();
    expect(await store.getEnvironment(env.id)).toEqual(ready);
  });

  it("LC-2 the creation barrier can refuse a merge, and nothing is written", async () => {
    store.setCreationBarrier(async (_trx, taskId) => {
      throw new AppError("task_cleanup_in_progress", `cleanup of ${taskId}`);
    });
    await expect(store.mergeEnvironmentRepos(env.id, [slot({ branchSlug: "x", worktree: tuple("X") })], tick())).rejects.toMatchObject({
      code: "task_cleanup_in_progress",
    });
    expect(await store.listEnvironmentRepos(env.id)).toEqual([]);
  });

  it("ENV-1 deleting the environment removes its rows but keeps its sessions", async () => {
    await store.mergeEnvironmentRepos(env.id, [slot({ branchSlug: "api", worktree: tuple("W") })], tick());
    const [s] = await store.listSessions(task.id);
    await store.deleteEnvironment(env.id);
    expect(await store.getEnvironment(env.id)).toBeUndefined();
    expect(await store.listEnvironmentRepos(env.id)).toEqual([]);
    expect(await store.getSession(s!.id)).toMatchObject({ id: s!.id, taskEnvironmentId: null });
  });

  it("ENV-1 deleting the task removes its environment, rows and sessions", async () => {
    await store.mergeEnvironmentRepos(env.id, [slot({ branchSlug: "api", worktree: tuple("W") })], tick());
    await store.deleteTask(task.id);
    expect(await store.getEnvironment(env.id)).toBeUndefined();
    expect(await store.listEnvironmentRepos(env.id)).toEqual([]);
    expect(await store.listSessions(task.id)).toEqual([]);
    expect(await store.getRepository(repo.id)).toBeDefined();
  });
});
