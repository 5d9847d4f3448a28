import { lstatSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ONE_DATABASE } from "../fixture/db.js";
import { gitSync, makeRepo } from "../fixture/git.js";
import { startTestServer, waitForSession, type TestServer } from "../fixture/server.js";
import { personHome, runResults, turn } from "./helpers.js";
import { cleanupsAfterEach } from "../fixture/cleanups.js";

/**
 * SBX-4: a confined agent may write its worktree's admin dir and the common dir's refs (its own
 * commits need them). A FIFO it plants where Grove reads git's small files (`HEAD`, `gitdir`)
 * must not block the server: a plain read of one waits for a writer forever, holding one of the
 * few threads Node does file I/O on.
 */
describe.each(ONE_DATABASE)("SBX-4 files an agent plants in git's dirs never stall the server (%s)", (kind) => {
  const cleanups = cleanupsAfterEach();

  /** A server whose agents run confined (with a person's home to protect) and one registered repository. */
  async function serverWithRepo(name: string): Promise<{ srv: TestServer; repositoryId: string }> {
    const person = await personHome();
    cleanups.push(() => rm(person.home, { recursive: true, force: true }));
    const srv = await startTestServer(kind, undefined, { HOME: person.home });
    cleanups.push(() => srv.close());
    const repo = await makeRepo({ name });
    cleanups.push(() => repo.cleanup());
    const r = await srv.api("POST", "/repositories", { path: repo.path });
    expect(r.status).toBe(201);
    return { srv, repositoryId: r.body.id };
  }

  async function session(srv: TestServer, repoId: string, title: string) {
    const task = (await srv.api("POST", "/tasks", { title, repositories: [{ repositoryId: repoId }] })).body;
    const s = await srv.api("POST", `/tasks/${task.id}/sessions`, { agent: "scripted" });
    expect(s.status, JSON.stringify(s.body)).toBe(201);
    await waitForSession(srv.api, s.body.id, ["waiting_for_input"]);
    const ws = (await srv.api("GET", `/sessions/${s.body.id}/workspace`)).body;
    return { task, session: s.body, worktree: ws.workspacePath as string };
  }

  it("SBX-4: FIFOs the agent plants as its worktree's HEAD and gitdir: Changes, the board and another task's Changes still answer", async () => {
    const { srv, repositoryId } = await serverWithRepo("fifo");
    const other = await session(srv, repositoryId, "Bystander");
    const mine = await session(srv, repositoryId, "Planter");
    expect(mine.session.sandbox).toBe("confined");
    const admin = gitSync(mine.worktree, "rev-parse", "--absolute-git-dir").trim();
    const msgs = await turn(
      srv,
      mine.session.id,
      [`run rm -f ${admin}/HEAD && mkfifo ${admin}/HEAD`, `run rm -f ${admin}/gitdir && mkfifo ${admin}/gitdir`].join("\n"),
    );
    expect(runResults(msgs)).toEqual([
      { code: 0, output: "" },
      { code: 0, output: "" },
    ]);
    expect(lstatSync(join(admin, "HEAD")).isFIFO()).toBe(true);
    expect(lstatSync(join(admin, "gitdir")).isFIFO()).toBe(true);

    // Each request would hang until the test's timeout if a read blocked on a FIFO.
    const changes = await srv.api("GET", `/tasks/${mine.task.id}/changes`);
    expect(changes.status).toBe(200);
    expect(changes.body.repositories[0].status).not.toBe("ok");
    for (let i = 0; i < 6; i++) expect((await srv.api("GET", `/tasks/${mine.task.id}/changes`)).status).toBe(200);
    const theirs = await srv.api("GET", `/tasks/${other.task.id}/changes`);
    expect(theirs.status).toBe(200);
    expect(theirs.body.repositories[0]).toMatchObject({ status: "ok" });
    expect((await srv.api("GET", "/tasks")).status).toBe(200);
  });

  it("SBX-4.7: a FIFO the agent planted as its index: git is stopped on it, Changes say tampered, many calls at once starve no one, the stop ends", async () => {
    const { srv, repositoryId } = await serverWithRepo("fifo-index");
    const other = await session(srv, repositoryId, "Bystander");
    const mine = await session(srv, repositoryId, "Planter");
    const admin = gitSync(mine.worktree, "rev-parse", "--absolute-git-dir").trim();
    // git opens the index with a blocking read: every git that reads it would wait for a writer
    // until its 120 s timeout (longer than this test may take).
    const msgs = await turn(srv, mine.session.id, `run rm -f ${admin}/index && mkfifo ${admin}/index`);
    expect(runResults(msgs)).toEqual([{ code: 0, output: "" }]);
    expect(lstatSync(join(admin, "index")).isFIFO()).toBe(true);

    const changes = await srv.api("GET", `/tasks/${mine.task.id}/changes`);
    expect(changes.status).toBe(200);
    expect(changes.body.repositories[0]).toMatchObject({ status: "tampered", errorCode: "workspace_tampered" });
    expect(changes.body.repositories[0].action).toContain("-type p");
    // More calls at once than the git concurrency cap (8): each git is stopped, none holds a slot.
    const many = await Promise.all(Array.from({ length: 12 }, () => srv.api("GET", `/tasks/${mine.task.id}/changes`)));
    expect(many.map((c) => [c.status, c.body.repositories[0].status])).toEqual(many.map(() => [200, "tampered"]));
    const theirs = await srv.api("GET", `/tasks/${other.task.id}/changes`);
    expect(theirs.body.repositories[0]).toMatchObject({ status: "ok" });
    await srv.stop();
    await expect.poll(() => srv.server.deps.git.runningCount, { timeout: 10_000 }).toBe(0);
  });
});
