import { describe, expect, it } from "vitest";
import { ONE_DATABASE } from "../fixture/db.js";
import { makeRepo } from "../fixture/git.js";
import { serverPerFile } from "../fixture/server.js";

/**
 * Every git process costs a fork of the server (its whole heap's page tables) and git's own
 * start: on a 2-core machine about 19 ms of CPU each. Registering a checkout and creating a task
 * are the steps every person (and every scenario test) takes first; these bounds keep them from
 * growing back.
 */
describe.each(ONE_DATABASE)("git processes per operation (%s)", (kind) => {
  const perFile = serverPerFile(kind);

  it("RR-1 SEC-3: registering a checkout runs two git processes however many are registered, on its checked-out branch or another; a missing default branch is asked of git", async () => {
    const srv = await perFile.start();
    const git = srv.server.deps.git;
    const repo = perFile.track(await makeRepo({ name: "on-main" }));
    repo.git("branch", "develop");
    const before = git.spawnCount;
    const created = await srv.inject("POST", "/repositories", { path: repo.path });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ defaultBranch: "main" });
    expect(git.spawnCount - before).toBe(2);

    const other = perFile.track(await makeRepo({ name: "on-develop" }));
    other.git("branch", "develop");
    const beforeOther = git.spawnCount;
    const onDevelop = await srv.inject("POST", "/repositories", { path: other.path, defaultBranch: "develop" });
    expect(onDevelop.status).toBe(201);
    expect(git.spawnCount - beforeOther).toBe(2);

    // The path guard reads the registered repositories' worktrees from their admin dirs: no git
    // process per repository already registered.
    const fourth = perFile.track(await makeRepo({ name: "after-two" }));
    const beforeFourth = git.spawnCount;
    expect((await srv.inject("POST", "/repositories", { path: fourth.path })).status).toBe(201);
    expect(git.spawnCount - beforeFourth).toBe(2);

    const third = perFile.track(await makeRepo({ name: "no-such-default" }));
    const beforeMissing = git.spawnCount;
    const missing = await srv.inject("POST", "/repositories", { path: third.path, defaultBranch: "nope" });
    expect(git.spawnCount - beforeMissing).toBe(3);
    expect(missing.status).toBe(400);
    expect(missing.body.error.code).toBe("base_branch_not_found");
  });

  it("RR-1: a repository's common dir is known from its registration: the first lock on it runs no git", async () => {
    const srv = await perFile.start();
    const git = srv.server.deps.git;
    const repo = perFile.track(await makeRepo({ name: "locked" }));
    const created = await srv.inject("POST", "/repositories", { path: repo.path });
    expect(created.status).toBe(201);
    const before = git.spawnCount;
    await git.withRepoLock(created.body.path, async () => undefined);
    expect(git.spawnCount - before).toBe(0);
  });

  it("WT-2: creating a task runs no git when its base branch is a loose ref; a packed-only base is asked of git; a deleted one is refused", async () => {
    const srv = await perFile.start();
    const git = srv.server.deps.git;
    const repo = perFile.track(await makeRepo({ name: "bases" }));
    repo.git("branch", "packed");
    repo.git("branch", "gone");
    const r = await srv.inject("POST", "/repositories", { path: repo.path });
    expect(r.status).toBe(201);
    const create = (baseBranch: string) => srv.inject("POST", "/tasks", { title: `On ${baseBranch}`, repositories: [{ repositoryId: r.body.id, baseBranch }] });
    const before = git.spawnCount;
    expect((await create("main")).status).toBe(201);
    expect(git.spawnCount - before).toBe(0);
    repo.git("pack-refs", "--all", "--prune");
    repo.git("branch", "-D", "gone");
    const beforePacked = git.spawnCount;
    expect((await create("packed")).status).toBe(201);
    expect(git.spawnCount - beforePacked).toBe(1);
    const gone = await create("gone");
    expect(gone.status).toBe(400);
    expect(gone.body.error.code).toBe("base_branch_not_found");
  });
});
