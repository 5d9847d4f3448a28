import { realpathSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { DATABASES } from "../fixture/db.js";
import { serverPerTest } from "../fixture/server.js";
import { linkedWorktrees, registerRepo } from "./helpers.js";

describe.each(DATABASES)("WT-6 concurrent launches on one repository (%s)", (kind) => {
  const perTest = serverPerTest(kind);

  it("WT-6 20 concurrent task launches on one repository all succeed; git worktree list equals the active environment rows; no lock-file failures", async () => {
    const srv = await perTest.start();
    const r = await registerRepo(srv, "busy");
    const repo = perTest.track(r.repo);
    const tasks = await Promise.all(
      Array.from({ length: 20 }, (_, i) => srv.api("POST", "/tasks", { title: `Parallel ${i}`, repositories: [{ repositoryId: r.id }] })),
    );
    expect(tasks.map((t) => t.status)).toEqual(Array(20).fill(201));
    const sessions = await Promise.all(tasks.map((t) => srv.api("POST", `/tasks/${t.body.id}/sessions`, {})));
    const failures = sessions.filter((s) => s.status !== 201 || s.body.state === "failed");
    expect(failures.map((f) => JSON.stringify(f.body))).toEqual([]);
    expect(JSON.stringify(sessions.map((s) => s.body))).not.toMatch(/index\.lock|config\.lock|\.lock'/);

    const rows: string[] = [];
    for (const t of tasks) {
      const env = (await srv.api("GET", `/tasks/${t.body.id}/environment`)).body;
      expect(env.status).toBe("ready");
      for (const row of env.repositories) if (row.status === "active") rows.push(realpathSync(row.worktreePath));
    }
    expect(rows).toHaveLength(20);
    expect(
      linkedWorktrees(repo)
        .map((p) => realpathSync(p))
        .sort(),
    ).toEqual(rows.sort());
    // Every worktree is on its own branch.
    const porcelain = repo.git("worktree", "list", "--porcelain");
    const branches = porcelain.split("\n").filter((l) => l.startsWith("branch refs/heads/grove/"));
    expect(new Set(branches).size).toBe(20);
    // Stop the 20 agents before the next database's run.
    await Promise.all(sessions.map((s) => srv.api("DELETE", `/sessions/${s.body.id}`)));
  }, 120_000);
});
