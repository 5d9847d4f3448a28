import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AppError } from "../../src/domain/errors.js";
import { ONE_DATABASE } from "../fixture/db.js";
import { waitForSession, type TestServer, serverPerTest } from "../fixture/server.js";
import { branchesOf, exists, linkedWorktrees, registerRepo } from "./helpers.js";

describe.each(ONE_DATABASE)("multi-repository tasks and compensation (%s)", (kind) => {
  const perTest = serverPerTest(kind);

  async function threeRepos(s: TestServer) {
    const a = await registerRepo(s, "alpha");
    const b = await registerRepo(s, "beta");
    const c = await registerRepo(s, "gamma");
    perTest.track(a.repo, b.repo, c.repo);
    b.repo.git("branch", "develop");
    c.repo.git("branch", "feature");
    return { a, b, c };
  }

  it("WT-8 WT-1: 3 repositories, one on 2 branches → 4 sibling worktrees; workspace is the task root; Changes has 4 entries; the agent writes <repoDir>/file", async () => {
    const srv = await perTest.start();
    const { a, b, c } = await threeRepos(srv);
    const task = await srv.api("POST", "/tasks", {
      title: "Cross repo",
      repositories: [
        { repositoryId: a.id },
        { repositoryId: b.id },
        { repositoryId: b.id, baseBranch: "develop" },
        { repositoryId: c.id, baseBranch: "feature" },
      ],
    });
    expect(task.status).toBe(201);
    const s = await srv.api("POST", `/tasks/${task.body.id}/sessions`, { prompt: "write alpha/from-agent.txt hi\nwrite beta-develop/dev.txt dev" });
    expect(s.status).toBe(201);
    await waitForSession(srv.api, s.body.id, ["waiting_for_input"]);

    const ws = (await srv.api("GET", `/sessions/${s.body.id}/workspace`)).body;
    const slots = ws.repositories as { worktreePath: string; repositoryId: string; worktreeBranch: string; position: number }[];
    expect(slots).toHaveLength(4);
    const names = slots.map((x) => x.worktreePath.slice(ws.workspacePath.length + 1));
    expect(names).toEqual(["alpha", "beta", "beta-develop", "gamma"]);
    // The workspace path is the task root, every slot a direct child of it (never nested).
    for (const x of slots) expect(join(x.worktreePath, "..")).toBe(ws.workspacePath);
    expect(join(ws.workspacePath, "..")).toBe(join(srv.home, "tasks"));
    expect(readFileSync(join(ws.workspacePath, ".grove-task.json"), "utf8")).toContain(task.body.id);
    // Two slots of one repository are on two different new branches (WT-2).
    expect(slots[1]!.worktreeBranch).not.toBe(slots[2]!.worktreeBranch);
    expect(branchesOf(b.repo)).toEqual(["develop", "main", slots[1]!.worktreeBranch, slots[2]!.worktreeBranch].sort());

    const ch = (await srv.api("GET", `/tasks/${task.body.id}/changes`)).body;
    expect(ch.repositories).toHaveLength(4);
    const alpha = ch.repositories.find((r: { worktreePath: string }) => r.worktreePath.endsWith("/alpha"));
    expect(alpha.files.map((f: { path: string }) => f.path)).toEqual(["from-agent.txt"]);
    const dev = ch.repositories.find((r: { worktreePath: string }) => r.worktreePath.endsWith("/beta-develop"));
    expect(dev.baseBranch).toBe("develop");
    expect(dev.files.map((f: { path: string }) => f.path)).toEqual(["dev.txt"]);
    expect(readFileSync(join(ws.workspacePath, "alpha", "from-agent.txt"), "utf8")).toBe("hi");
    // The second branch's slot of one repository is addressed by its worktree id (CHG-2).
    const q = (wt: string) => `/tasks/${task.body.id}/changes/diff?repositoryId=${b.id}&path=dev.txt&worktreeId=${wt}`;
    const devDiff = await srv.api("GET", q(dev.worktreeId));
    expect(devDiff.status).toBe(200);
    expect(devDiff.body.patch).toContain("+dev");
    const beta = ch.repositories.find((r: { worktreePath: string }) => r.worktreePath.endsWith("/beta"));
    expect(beta.worktreeId).not.toBe(dev.worktreeId);
    expect((await srv.api("GET", q(beta.worktreeId))).body.patch).toBe("");
  });

  it("WT-8 failure in the 3rd slot → this attempt's slots gone (dirs, registrations, branches), session failed naming the repository; a retry after fixing succeeds", async () => {
    const srv = await perTest.start();
    const { a, b, c } = await threeRepos(srv);
    const task = await srv.api("POST", "/tasks", {
      title: "Will fail",
      repositories: [{ repositoryId: a.id }, { repositoryId: b.id }, { repositoryId: c.id, baseBranch: "feature" }],
    });
    expect(task.status).toBe(201);
    const featureTip = c.repo.git("rev-parse", "feature").trim();
    c.repo.git("branch", "-D", "feature"); // the base vanishes after the task was created
    const before = [a, b, c].map((x) => branchesOf(x.repo));

    const s = await srv.api("POST", `/tasks/${task.body.id}/sessions`, { prompt: "say hi" });
    const failed = s.body.state === "failed" ? s.body : await waitForSession(srv.api, s.body.id, ["failed"]);
    expect(failed.lastError.repositoryId).toBe(c.id);
    for (const x of [a, b, c]) expect(linkedWorktrees(x.repo)).toEqual([]);
    expect([a, b, c].map((x) => branchesOf(x.repo))).toEqual(before);
    const root = join(srv.home, "tasks");
    for (const dir of exists(root) ? readdirSync(root) : []) {
      for (const name of ["alpha", "beta", "gamma"]) expect(exists(join(root, dir, name))).toBe(false);
    }
    const env = (await srv.api("GET", `/tasks/${task.body.id}/environment`)).body;
    expect(env.status).toBe("failed");
    expect(env.repositories.filter((r: { status: string }) => r.status === "active")).toEqual([]);

    c.repo.git("branch", "feature", featureTip); // fix the base
    const retry = await srv.api("POST", `/tasks/${task.body.id}/sessions`, { prompt: "say again" });
    expect(retry.status).toBe(201);
    await waitForSession(srv.api, retry.body.id, ["waiting_for_input"]);
    for (const x of [a, b, c]) expect(linkedWorktrees(x.repo)).toHaveLength(1);
  });

  it("WT-7 a refused slot row (cleanup barrier) undoes only this attempt's directory, registration and new branch", async () => {
    const srv = await perTest.start();
    const { a, b } = await threeRepos(srv);
    const task = await srv.api("POST", "/tasks", { title: "Barrier", repositories: [{ repositoryId: a.id }, { repositoryId: b.id }] });
    const store = srv.server.deps.store;
    let calls = 0;
    // Call 1 is the launch reservation, call 2 persists slot 1, call 3 would persist slot 2.
    store.setCreationBarrier(async () => {
      calls += 1;
      if (calls === 3) throw new AppError("task_cleanup_in_progress", "a cleanup job started");
    });
    a.repo.git("branch", "unrelated");
    const s = await srv.api("POST", `/tasks/${task.body.id}/sessions`, {});
    const failed = s.body.state === "failed" ? s.body : await waitForSession(srv.api, s.body.id, ["failed"]);
    expect(failed.lastError).toMatchObject({ code: "task_cleanup_in_progress", repositoryId: b.id });
    expect(linkedWorktrees(a.repo)).toEqual([]);
    expect(linkedWorktrees(b.repo)).toEqual([]);
    expect(branchesOf(a.repo)).toEqual(["main", "unrelated"]);
    expect(branchesOf(b.repo)).toEqual(["develop", "main"]);
    const env = (await srv.api("GET", `/tasks/${task.body.id}/environment`)).body;
    expect(env.repositories.filter((r: { status: string }) => r.status === "active")).toEqual([]);

    store.setCreationBarrier(async () => {});
    const retry = await srv.api("POST", `/tasks/${task.body.id}/sessions`, {});
    expect(retry.status).toBe(201);
    expect(linkedWorktrees(a.repo)).toHaveLength(1);
    expect(linkedWorktrees(b.repo)).toHaveLength(1);
  });
});
