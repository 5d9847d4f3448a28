import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AppError } from "../../src/domain/errors.js";
import type { TaskRecord } from "../../src/domain/records.js";
import { openStore } from "../../src/store/open.js";
import type { Store } from "../../src/store/store.js";
import { DATABASES, openTestStore } from "../fixture/db.js";
import { seedTask, session, tick } from "./records.js";

describe.each(DATABASES)("reserveLaunch on %s", (kind) => {
  let store: Store;
  let cleanup: () => Promise<void>;
  let databaseUrl: string | undefined;
  let home: string;
  let task: TaskRecord;

  beforeEach(async () => {
    ({ store, cleanup, databaseUrl, home } = await openTestStore(kind));
    ({ task } = await seedTask(store));
  });
  afterEach(() => cleanup());

  const launch = (s: Store, runnerId = "runner-a") => s.reserveLaunch({ taskId: task.id, session: session(task.id), runnerId, now: tick() });

  it("SES-2 the first session materializes: environment creating, session linked", async () => {
    const r = await launch(store);
    expect(r.mode).toBe("materialize");
    expect(r.environment).toMatchObject({
      taskId: task.id,
      status: "creating",
      runnerId: "runner-a",
      materializerSessionId: r.session.id,
      workspacePath: null,
    });
    expect(r.session.taskEnvironmentId).toBe(r.environment.id);
    expect(await store.getEnvironmentByTask(task.id)).toEqual(r.environment);
    expect(await store.getSession(r.session.id)).toEqual(r.session);
  });

  it("SES-2 a launch while the environment is creating is refused with workspace_preparing, no session row", async () => {
    const first = await launch(store);
    await expect(launch(store)).rejects.toMatchObject({ code: "workspace_preparing", status: 409 });
    expect((await store.listSessions(task.id)).map((s) => s.id)).toEqual([first.session.id]);
  });

  it("SES-3 once ready, later sessions attach to the same environment", async () => {
    const first = await launch(store);
    await store.setEnvironmentStatus(first.environment.id, ["creating"], "ready", { workspacePath: "/w" }, tick());
    const second = await launch(store);
    expect(second.mode).toBe("attach");
    expect(second.environment.id).toBe(first.environment.id);
    expect(second.session.taskEnvironmentId).toBe(first.environment.id);
    expect(await store.listSessions(task.id)).toHaveLength(2);
  });

  it("SES-2 a failed environment is claimed again by the next launch (failed → creating)", async () => {
    const first = await launch(store);
    await store.setEnvironmentStatus(first.environment.id, ["creating"], "failed", {}, tick());
    const retry = await launch(store, "runner-b");
    expect(retry.mode).toBe("materialize");
    expect(retry.environment).toMatchObject({ id: first.environment.id, status: "creating", materializerSessionId: retry.session.id, runnerId: "runner-b" });
  });

  it("SES-2 a missing task is not_found, an archived task is task_archived", async () => {
    await expect(store.reserveLaunch({ taskId: "task_nope", session: session("task_nope"), runnerId: "r", now: tick() })).rejects.toMatchObject({
      code: "not_found",
    });
    await store.updateTask(task.id, { archivedAt: tick() }, tick());
    await expect(launch(store)).rejects.toMatchObject({ code: "task_archived" });
    expect(await store.getEnvironmentByTask(task.id)).toBeUndefined();
  });

  it("LC-2 the creation barrier runs inside the transaction and can refuse: nothing written", async () => {
    const seen: string[] = [];
    store.setCreationBarrier(async (trx, taskId) => {
      seen.push(taskId);
      expect(trx).toBeDefined();
      throw new AppError("task_cleanup_in_progress", "cleanup running");
    });
    await expect(launch(store)).rejects.toMatchObject({ code: "task_cleanup_in_progress" });
    expect(seen).toEqual([task.id]);
    expect(await store.getEnvironmentByTask(task.id)).toBeUndefined();
    expect(await store.listSessions(task.id)).toEqual([]);
  });

  it("SES-2 two concurrent launches on a fresh task: one materializes, the other gets workspace_preparing", async () => {
    const results = await Promise.allSettled([launch(store), launch(store)]);
    const ok = results.filter((r) => r.status === "fulfilled");
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
    expect(ok).toHaveLength(1);
    expect(ok[0]!.value.mode).toBe("materialize");
    expect(refused).toHaveLength(1);
    expect(refused[0]!.reason).toMatchObject({ code: "workspace_preparing" });
    expect(await store.listSessions(task.id)).toHaveLength(1);
    expect(await store.getEnvironmentByTask(task.id)).toMatchObject({ status: "creating" });
  });

  // PostgreSQL only: two pools are two real connections; SQLite has one writer by design.
  if (kind === "postgres")
    it("ST-3 SES-2 two server processes (separate pools) racing on a fresh task: one environment, one session", async () => {
      const other = await openStore({ home, ...(databaseUrl !== undefined && { databaseUrl }) });
      try {
        for (let i = 0; i < 5; i++) {
          const { task: t } = await seedTask(store);
          const results = await Promise.allSettled([
            store.reserveLaunch({ taskId: t.id, session: session(t.id), runnerId: "runner-a", now: tick() }),
            other.reserveLaunch({ taskId: t.id, session: session(t.id), runnerId: "runner-b", now: tick() }),
          ]);
          expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
          const refused = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
          expect(refused?.reason).toMatchObject({ code: "workspace_preparing" });
          expect(await store.listSessions(t.id)).toHaveLength(1);
        }
      } finally {
        await other.close();
      }
    });
});
