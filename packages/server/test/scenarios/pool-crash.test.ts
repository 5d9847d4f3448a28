import { existsSync, readdirSync } from "node:fs";
import { join, sep } from "node:path";
import { describe, expect, it } from "vitest";
import { crashServers } from "../fixture/crash.js";
import { DATABASES } from "../fixture/db.js";
import { gitSync, makeRepo, type TestRepo } from "../fixture/git.js";
import { apiClient, waitFor, waitForSession } from "../fixture/server.js";

/** Every worktree directory in the pool directories, and whether it is marked ready. */
function poolEntries(home: string): { path: string; ready: boolean }[] {
  const root = join(home, "pool");
  const out: { path: string; ready: boolean }[] = [];
  if (!existsSync(root)) return out;
  for (const repo of readdirSync(root)) {
    for (const base of readdirSync(join(root, repo))) {
      const dir = join(root, repo, base);
      const names = readdirSync(dir);
      for (const n of names.filter((x) => !x.includes("."))) out.push({ path: join(dir, n), ready: names.includes(`${n}.ready`) });
    }
  }
  return out;
}

/** The claim markers left in the pool directories. */
function claimFiles(home: string): string[] {
  const root = join(home, "pool");
  if (!existsSync(root)) return [];
  return readdirSync(root).flatMap((repo) =>
    readdirSync(join(root, repo)).flatMap((base) => readdirSync(join(root, repo, base)).filter((n) => n.endsWith(".claim"))),
  );
}

function worktreesOf(repo: TestRepo): { path: string; branch: string | null }[] {
  const out: { path: string; branch: string | null }[] = [];
  for (const block of gitSync(repo.path, "worktree", "list", "--porcelain").split("\n\n")) {
    const path = /^worktree (.+)$/m.exec(block)?.[1];
    if (path && path !== repo.path) out.push({ path, branch: /^branch refs\/heads\/(.+)$/m.exec(block)?.[1] ?? null });
  }
  return out;
}

const POINTS = ["pool.after_claim", "pool.after_branch", "pool.after_checkout", "pool.after_refill_add"] as const;

describe.each(DATABASES)("WT-10 pool crash safety (%s)", (kind) => {
  const crash = crashServers(kind, { GROVE_WORKTREE_POOL_SIZE: "1" });

  it.each(POINTS)(
    "WT-10 SEC-4: kill -9 at %s → after restart every pooled worktree is in the pool or exactly one task's, doctor clean, the task starts",
    async (point) => {
      const db = await crash.home();
      const repo = await makeRepo();
      crash.cleanups.push(repo.cleanup);
      const refill = point === "pool.after_refill_add";
      // The refill point fires on the first fill (at registration); the claim points need a warm pool first.
      // The claim points fire only in a launch, so the same faulty server warms the pool first.
      const { server: faulty } = await db.start(`${point}:exit`);
      let api = apiClient(faulty.url);
      // The refill starts with the registration, so on a loaded machine the faulty server can reach
      // its refill point and exit before it answers: a closed connection is that crash (the exit
      // code is checked below), and the repository is found by its path after the restart.
      const r = await api("POST", "/repositories", { path: repo.path }).catch((e: unknown) => {
        if (!refill) throw e;
        return undefined;
      });
      if (r) expect(r.status).toBe(201);
      let taskId: string | undefined;
      if (refill) {
        // The first fill starts at registration and dies once its worktree exists, before it is marked ready.
        expect((await faulty.exited).code).toBe(137);
        expect(worktreesOf(repo)).toHaveLength(1);
      } else {
        await waitFor(() => poolEntries(db.home).some((e) => e.ready), "a warm pool");
        const t = await api("POST", "/tasks", { title: "Pool crash", repositories: [{ repositoryId: r?.body.id }] });
        taskId = t.body.id;
        await expect(api("POST", `/tasks/${taskId}/sessions`, {})).rejects.toThrow();
        expect((await faulty.exited).code).toBe(137);
        // The crash left the claim behind: the worktree is on its way out of the pool.
        expect(claimFiles(db.home)).toHaveLength(1);
      }

      const { server } = await db.start();
      api = apiClient(server.url);
      const repositoryId: string =
        r?.body.id ?? ((await api("GET", "/repositories")).body as { id: string; path: string }[]).find((x) => x.path === repo.path)?.id;
      taskId ??= (await api("POST", "/tasks", { title: "After the fill crash", repositories: [{ repositoryId }] })).body.id;
      const tasksDir = join(db.home, "tasks") + sep;
      // After restart (recovery ran before listening; the refill it starts is awaited): each
      // worktree git knows is either pooled (ready, unclaimed) or under the tasks directory.
      await waitFor(
        () => poolEntries(db.home).length === 1 && poolEntries(db.home).every((e) => e.ready) && worktreesOf(repo).length === 1,
        "the pool back at its size",
      );
      const pool = poolEntries(db.home);
      expect(claimFiles(db.home)).toEqual([]);
      for (const wt of worktreesOf(repo)) {
        const entry = pool.find((e) => e.path === wt.path);
        if (entry) {
          expect(entry.ready, `${wt.path} is a finished pool entry`).toBe(true);
          expect(wt.branch, `${wt.path} is detached in the pool`).toBeNull();
        } else {
          expect(wt.path.startsWith(tasksDir), `${wt.path} is a task's`).toBe(true);
        }
      }
      expect((await api("GET", "/doctor")).body).toMatchObject({ ok: true, findings: [] });

      const again = await api("POST", `/tasks/${taskId}/sessions`, {});
      expect(again.status).toBe(201);
      await waitForSession(api, again.body.id, ["waiting_for_input"]);
      const ws = (await api("GET", `/sessions/${again.body.id}/workspace`)).body;
      const slot = ws.repositories[0];
      // The launch took the pooled worktree and the pool refills behind it: git's list is read once
      // that `git worktree add` is done (a half-written entry makes `git worktree list` fail).
      await waitFor(() => poolEntries(db.home).length === 1 && poolEntries(db.home).every((e) => e.ready), "the pool refilled after the launch");
      const owned = worktreesOf(repo).filter((w) => w.path.startsWith(tasksDir));
      expect(owned).toEqual([{ path: slot.worktreePath, branch: slot.worktreeBranch }]);
      expect(poolEntries(db.home).map((e) => e.path)).not.toContain(slot.worktreePath);
      expect((await api("GET", "/doctor")).body).toMatchObject({ ok: true, findings: [] });
      // Two server starts, a pool fill and a launch: past the 60 s default on a loaded 2-core machine.
    },
    180_000,
  );
});
