import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SessionRecord, SessionState } from "../../src/domain/records.js";
import type { Store } from "../../src/store/store.js";
import { DATABASES, openTestStore } from "../fixture/db.js";
import { seedTask, session, tick } from "./records.js";

describe.each(DATABASES)("SES-6 recoverAfterRestart on %s", (kind) => {
  let store: Store;
  let cleanup: () => Promise<void>;

  beforeEach(async () => {
    ({ store, cleanup } = await openTestStore(kind));
  });
  afterEach(() => cleanup());

  /** A task whose environment (owned by `runnerId`) is left in `envStatus`, with one session per state. */
  async function scenario(runnerId: string, envStatus: "creating" | "ready" | "failed", states: SessionState[]) {
    const { task, repo } = await seedTask(store);
    const first = await store.reserveLaunch({ taskId: task.id, session: session(task.id, "starting"), runnerId, now: tick() });
    if (envStatus !== "creating") await store.setEnvironmentStatus(first.environment.id, ["creating"], envStatus, {}, tick());
    const byState = new Map<SessionState, SessionRecord>([["starting", first.session]]);
    for (const st of states) {
      if (st === "starting") continue;
      const s = session(task.id, st, { taskEnvironmentId: first.environment.id });
      await store.insertSession(s);
      byState.set(st, s);
    }
    return { task, repo, environment: first.environment, byState };
  }

  it("SES-6 an interrupted launch fails with launch_interrupted; its creating environment becomes failed, rows kept", async () => {
    const { environment, byState, repo } = await scenario("me", "creating", ["starting", "created"]);
    const worktree = { worktreeId: "wt-1", worktreePath: "/grove/tasks/t/r", worktreeBranch: "grove/t" };
    const rows = await store.mergeEnvironmentRepos(
      environment.id,
      [{ repositoryId: repo.id, branchSlug: "", baseBranch: "main", position: 0, errorMessage: null, worktree }],
      tick(),
    );
    const now = tick();
    const changed = await store.recoverAfterRestart("me", now);
    const s = byState.get("starting")!;
    expect(changed.map((c) => c.id)).toEqual([s.id]);
    expect(await store.getSession(s.id)).toMatchObject({
      state: "failed",
      lastError: { code: "launch_interrupted", message: expect.any(String), at: now },
    });
    expect(await store.getEnvironment(environment.id)).toMatchObject({ status: "failed", materializerSessionId: null });
    expect(await store.listEnvironmentRepos(environment.id)).toEqual(rows);
    expect((await store.getSession(byState.get("created")!.id))?.state).toBe("created");
  });

  it("SES-6 with a ready environment, starting/running/waiting sessions become waiting_for_input; terminal ones stay", async () => {
    const all: SessionState[] = ["starting", "running", "waiting_for_input", "created", "completed", "failed", "cancelled"];
    const { environment, byState } = await scenario("me", "ready", all);
    const changed = await store.recoverAfterRestart("me", tick());
    expect(changed.map((c) => c.id).sort()).toEqual([byState.get("starting")!.id, byState.get("running")!.id].sort());
    expect(changed.every((c) => c.state === "waiting_for_input" && c.lastError === null)).toBe(true);
    for (const st of all) {
      const expected = st === "starting" || st === "running" ? "waiting_for_input" : st;
      expect((await store.getSession(byState.get(st)!.id))?.state, st).toBe(expected);
    }
    expect((await store.getEnvironment(environment.id))?.status).toBe("ready");
  });

  it("ST-3 only this runner's environments and their sessions are touched; sessions without an environment are", async () => {
    const mine = await scenario("me", "ready", ["running"]);
    const theirs = await scenario("other", "creating", ["running"]);
    const loose = session(mine.task.id, "running");
    await store.insertSession(loose);

    const changed = await store.recoverAfterRestart("me", tick());
    expect(changed.map((c) => c.id).sort()).toEqual([mine.byState.get("starting")!.id, mine.byState.get("running")!.id, loose.id].sort());
    expect((await store.getEnvironment(theirs.environment.id))?.status).toBe("creating");
    expect((await store.getSession(theirs.byState.get("starting")!.id))?.state).toBe("starting");
    expect((await store.getSession(theirs.byState.get("running")!.id))?.state).toBe("running");
  });

  it("SES-6 a retry after recovery materializes the failed environment again", async () => {
    const { task, environment } = await scenario("me", "creating", []);
    await store.recoverAfterRestart("me", tick());
    const retry = await store.reserveLaunch({ taskId: task.id, session: session(task.id), runnerId: "me", now: tick() });
    expect(retry).toMatchObject({ mode: "materialize", environment: { id: environment.id, status: "creating" } });
  });
});
