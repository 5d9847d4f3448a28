import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ONE_DATABASE } from "../fixture/db.js";
import { gitSync, plantGitDir, tempDir } from "../fixture/git.js";
import { openEvents, startTestServer, waitFor, waitForSession, type TestServer } from "../fixture/server.js";
import { taskWithSession } from "../lifecycle/helpers.js";

describe.each(ONE_DATABASE)("SBX-4 Grove's git never trusts the worktree (%s)", (kind) => {
  let srv: TestServer | undefined;
  let scratch: string | undefined;
  afterEach(async () => {
    await srv?.close();
    srv = undefined;
    if (scratch) rmSync(scratch, { recursive: true, force: true });
    scratch = undefined;
  });

  it("SBX-4 a .git redirected to a planted git dir: the fsmonitor command never runs (commit, Changes, watcher, diff, update, merge, prompt, new session); the task shows workspace_tampered until restore", async () => {
    srv = await startTestServer(kind);
    scratch = await tempDir("grove-sbx4-");
    const marker = join(scratch, "fsmonitor-ran");
    const { task, session, slot, repo } = await taskWithSession(srv, "write work.txt v1\ncommit first\nwrite wip.txt uncommitted");
    const wt = slot.worktreePath as string;
    const events = await openEvents(srv.url);
    try {
      plantGitDir(wt, marker, { redirect: true });
      // The plant is real: plain git in the worktree runs the command.
      gitSync(wt, "status", "--porcelain");
      expect(existsSync(marker)).toBe(true);
      rmSync(marker);

      // The watcher sees the worktree change and recomputes Changes by itself (nobody asks).
      const seen = events.frames.length;
      writeFileSync(join(wt, "after-tamper.txt"), "x\n");
      await waitFor(() => events.frames.slice(seen).some((f) => f.type === "changes.updated" && f.data.taskId === task.id), "changes.updated after the tamper");
      await waitFor(
        () => events.frames.slice(seen).some((f) => f.type === "task.summary" && f.data.summary?.id === task.id),
        "the watcher's recomputed summary",
      );

      const changes = await srv.api("GET", `/tasks/${task.id}/changes`);
      expect(changes.status).toBe(200);
      expect(changes.body.repositories[0]).toMatchObject({
        status: "tampered",
        errorCode: "workspace_tampered",
        action: expect.stringContaining(`grove task restore ${task.id}`),
      });
      const env = await srv.api("GET", `/tasks/${task.id}/environment`);
      expect(env.body.repositories[0]).toMatchObject({ worktreeState: "tampered" });
      const doctor = await srv.api("GET", "/doctor");
      expect(doctor.body.findings).toEqual(expect.arrayContaining([expect.objectContaining({ kind: "tampered", taskId: task.id, path: wt })]));

      const refused = [
        await srv.api("GET", `/tasks/${task.id}/changes/diff?repositoryId=${slot.repositoryId}&path=work.txt`),
        await srv.api("POST", `/tasks/${task.id}/commit`, { message: "by the person" }),
        await srv.api("POST", `/tasks/${task.id}/update-from-base`, { autostash: true }),
        await srv.api("POST", `/tasks/${task.id}/merge`, {}),
        await srv.api("POST", `/tasks/${task.id}/sessions`, { prompt: "write y.txt y" }),
      ];
      for (const r of refused) expect(r.body.error?.code, JSON.stringify(r.body)).toBe("workspace_tampered");
      for (const r of refused) expect(r.status).toBe(409);

      const p = await srv.api("POST", `/sessions/${session.id}/prompt`, { prompt: "write z.txt z" });
      expect(p.status).toBe(202);
      const failed = await waitForSession(srv.api, session.id, ["failed"]);
      expect(failed.lastError).toMatchObject({ code: "workspace_tampered" });
      expect(existsSync(join(wt, "z.txt"))).toBe(false);

      expect(existsSync(marker)).toBe(false);
      // Nothing was written into the planted git dir: no commit, no index, no refs.
      expect(existsSync(join(wt, "evilgit", "index"))).toBe(false);
      expect(existsSync(join(wt, "evilgit", "refs", "heads"))).toBe(false);

      // The person restores: the link is written back, and Grove's git works again there.
      const restored = await srv.api("POST", `/tasks/${task.id}/environment/restore`);
      expect(restored.status).toBe(200);
      expect(readFileSync(join(wt, ".git"), "utf8")).toMatch(/^gitdir: .*\/\.git\/worktrees\/[^/]+\n$/);
      expect((await srv.api("GET", `/tasks/${task.id}/environment`)).body.repositories[0]).toMatchObject({ worktreeState: "ok" });
      const commit = await srv.api("POST", `/tasks/${task.id}/commit`, { message: "after restore", paths: ["wip.txt"] });
      expect(commit.status).toBe(201);
      expect(repo.git("log", "-1", "--format=%s", slot.worktreeBranch).trim()).toBe("after restore");
      expect(existsSync(marker)).toBe(false);
    } finally {
      events.close();
    }
  });

  it("SBX-4 a common-dir config an unconfined agent rewrote cannot run its fsmonitor command in Grove's Changes or diff (command-line -c wins)", async () => {
    srv = await startTestServer(kind);
    scratch = await tempDir("grove-sbx4-");
    const marker = join(scratch, "ran");
    const { task, slot, repo } = await taskWithSession(srv, "write work.txt v1");
    const common = gitSync(repo.path, "rev-parse", "--path-format=absolute", "--git-common-dir").trim();
    gitSync(repo.path, "config", "core.fsmonitor", `echo fsmonitor >> ${marker}; false`);
    expect(common).toBe(join(repo.path, ".git"));
    const changes = await srv.api("GET", `/tasks/${task.id}/changes`);
    expect(changes.body.repositories[0]).toMatchObject({ status: "ok" });
    expect(changes.body.repositories[0].files.map((f: { path: string }) => f.path)).toContain("work.txt");
    const diff = await srv.api("GET", `/tasks/${task.id}/changes/diff?repositoryId=${slot.repositoryId}&path=work.txt`);
    expect(diff.status).toBe(200);
    expect(existsSync(marker)).toBe(false);
  });
});
