import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Store } from "../../src/store/store.js";
import { DATABASES, openTestStore } from "../fixture/db.js";
import { repository, seedTask, session, task, tick } from "./records.js";

describe.each(DATABASES)("repositories and tasks on %s", (kind) => {
  let store: Store;
  let cleanup: () => Promise<void>;

  beforeEach(async () => {
    ({ store, cleanup } = await openTestStore(kind));
  });
  afterEach(() => cleanup());

  it("RR-1 a repository round-trips, booleans and JSON included; listed oldest first", async () => {
    const a = repository({
      pullBeforeWorktree: true,
      hasCredential: true,
      copyFiles: [".env", "config/local.json"],
      setupScript: "npm ci",
      url: "https://github.com/o/r.git",
      provider: "github",
      credentialPolicy: "executor",
    });
    const b = repository();
    await store.insertRepository(b.createdAt < a.createdAt ? b : a);
    await store.insertRepository(b.createdAt < a.createdAt ? a : b);
    expect(await store.getRepository(a.id)).toEqual(a);
    expect(await store.getRepository(b.id)).toEqual(b);
    expect(await store.findRepositoryByName(b.name)).toEqual(b);
    expect(await store.findRepositoryByName("nope")).toBeUndefined();
    expect((await store.listRepositories()).map((r) => r.id)).toEqual([a.id, b.id]);
  });

  it("RR-1 a duplicate name or path is refused with repository_exists", async () => {
    const a = repository();
    await store.insertRepository(a);
    await expect(store.insertRepository(repository({ name: a.name }))).rejects.toMatchObject({ code: "repository_exists", status: 409 });
    await expect(store.insertRepository(repository({ path: a.path }))).rejects.toMatchObject({ code: "repository_exists" });
    expect(await store.listRepositories()).toHaveLength(1);
  });

  it("a task round-trips with its attachments ordered by position", async () => {
    const r1 = repository();
    const r2 = repository();
    await store.insertRepository(r1);
    await store.insertRepository(r2);
    const t = task([r1.id, r2.id]);
    t.repositories = [
      { repositoryId: r2.id, baseBranch: "dev", checkoutBranch: "feature/x", prNumber: 42, position: 1 },
      { repositoryId: r1.id, baseBranch: "main", checkoutBranch: null, prNumber: null, position: 0 },
    ];
    await store.insertTask(t);
    const got = await store.getTask(t.id);
    expect(got).toEqual({ ...t, repositories: [t.repositories[1], t.repositories[0]] });
  });

  it("insertTask is one transaction: a bad attachment leaves no task row", async () => {
    const t = task(["repo_missing"]);
    await expect(store.insertTask(t)).rejects.toThrow();
    expect(await store.getTask(t.id)).toBeUndefined();
  });

  it("LC-5 listTasks splits active and archived; updateTask patches and bumps updatedAt", async () => {
    const { task: a } = await seedTask(store);
    const { task: b } = await seedTask(store);
    const at = tick();
    const archived = await store.updateTask(b.id, { archivedAt: at, state: "done", title: "B!" }, at);
    expect(archived).toMatchObject({ id: b.id, archivedAt: at, state: "done", title: "B!", description: b.description, updatedAt: at });
    expect(archived?.repositories).toEqual(b.repositories);
    expect((await store.listTasks({ archived: false })).map((t) => t.id)).toEqual([a.id]);
    const listed = await store.listTasks({ archived: true });
    expect(listed).toEqual([archived]);
    const back = await store.updateTask(b.id, { archivedAt: null }, tick());
    expect(back?.archivedAt).toBeNull();
    expect(await store.updateTask("task_nope", { title: "x" }, tick())).toBeUndefined();
  });

  it("deleteTask removes the task and its attachments; the repository stays", async () => {
    const { repo, task: t } = await seedTask(store);
    await store.deleteTask(t.id);
    expect(await store.getTask(t.id)).toBeUndefined();
    expect(await store.listTasks({ archived: false })).toEqual([]);
    expect(await store.getRepository(repo.id)).toEqual(repo);
  });

  it("transaction() is atomic: store methods inside it join it and roll back on a throw", async () => {
    const { task: t } = await seedTask(store);
    const extra = repository();
    await expect(
      store.transaction(async () => {
        await store.updateTask(t.id, { title: "inside" }, tick());
        await store.insertRepository(extra);
        // Nested barrier transactions join too instead of opening a second one.
        await store.reserveLaunch({ taskId: t.id, session: session(t.id), runnerId: "r", now: tick() });
        expect((await store.getTask(t.id))?.title).toBe("inside");
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    expect((await store.getTask(t.id))?.title).toBe(t.title);
    expect(await store.getRepository(extra.id)).toBeUndefined();
    expect(await store.getEnvironmentByTask(t.id)).toBeUndefined();

    expect(await store.transaction(async () => (await store.updateTask(t.id, { title: "committed" }, tick()))?.title)).toBe("committed");
    expect((await store.getTask(t.id))?.title).toBe("committed");
  });
});
