import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ONE_DATABASE } from "../fixture/db.js";
import { gitSync } from "../fixture/git.js";
import { repoAndTask } from "../fixture/scenario.js";
import { waitForSession, serverPerTest } from "../fixture/server.js";
import { envRows, jobsOf, processGone, taskWithSession } from "./helpers.js";

describe.each(ONE_DATABASE)("SES-7 deleting sessions (%s)", (kind) => {
  const perTest = serverPerTest(kind);

  it("SES-7 ENV-6: deleting the last session keeps worktree, branch and uncommitted files, creates no cleanup job; the next session attaches to the same worktree", async () => {
    const srv = await perTest.start();
    const { task, slot, session, pid, repo } = await taskWithSession(srv);
    const head = gitSync(slot.worktreePath, "rev-parse", "HEAD").trim();
    const d = await srv.api("DELETE", `/sessions/${session.id}`);
    expect(d.status).toBe(204);
    expect(processGone(pid)).toBe(true);
    expect((await srv.api("GET", `/sessions/${session.id}`)).status).toBe(404);
    expect(await jobsOf(srv.api, task.id)).toEqual([]);
    expect(readFileSync(`${slot.worktreePath}/wip.txt`, "utf8")).toContain("uncommitted");
    expect(gitSync(repo.path, "rev-parse", `refs/heads/${slot.worktreeBranch}`).trim()).toBe(head);
    expect((await envRows(srv.api, task.id))[0]).toMatchObject({ status: "active", worktreeId: slot.worktreeId });

    // What is counted is the attach; the board's background diff-stat refresh, which
    // runs a Changes computation when a session starts, is not part of it.
    await srv.server.orchestrator.summaries.dispose();
    const gitBefore = srv.server.deps.git.spawnCount;
    const next = await srv.api("POST", `/tasks/${task.id}/sessions`, { prompt: "say again" });
    expect(next.status).toBe(201);
    await waitForSession(srv.api, next.body.id, ["waiting_for_input"]);
    const ws = (await srv.api("GET", `/sessions/${next.body.id}/workspace`)).body;
    expect(ws.repositories[0]).toMatchObject({ worktreeId: slot.worktreeId, worktreePath: slot.worktreePath });
    expect(srv.server.deps.git.spawnCount - gitBefore).toBeLessThanOrEqual(3);
    expect(readFileSync(`${slot.worktreePath}/wip.txt`, "utf8")).toContain("uncommitted");
  });

  it("SES-7: deleting a running session → 409 session_running, nothing deleted", async () => {
    const srv = await perTest.start();
    const { task } = await repoAndTask(srv);
    const s = await srv.api("POST", `/tasks/${task.id}/sessions`, { prompt: "sleep 20000" });
    expect(s.body.state).toBe("running");
    const d = await srv.api("DELETE", `/sessions/${s.body.id}`);
    expect(d.status).toBe(409);
    expect(d.body.error.code).toBe("session_running");
    expect((await srv.api("GET", `/sessions/${s.body.id}`)).status).toBe(200);
    expect(await jobsOf(srv.api, task.id)).toEqual([]);
    await srv.api("POST", `/sessions/${s.body.id}/cancel`);
  });
});
