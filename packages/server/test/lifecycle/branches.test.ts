import { describe, expect, it } from "vitest";
import { ONE_DATABASE } from "../fixture/db.js";
import { makeRepo } from "../fixture/git.js";
import { waitFor, waitForSession, type TestServer, serverPerTest } from "../fixture/server.js";
import { jobsOf, waitForJob } from "./helpers.js";

/**
 * LC-7 / docs/specs/lifecycle.md AC-LC-7b: delete removes only a branch Grove created for the
 * task. A branch the person attached (`checkoutBranch`) is theirs, whatever it holds. LIVE-5:
 * branches are removed by the purge at the end of the trash retention (0 here, so at once).
 */
describe.each(ONE_DATABASE)("LC-7 branches on delete (%s)", (kind) => {
  const perTest = serverPerTest(kind, { GROVE_TRASH_RETENTION_MS: "0" });

  /** A repository whose `develop` carries one commit `main` does not have, and `feature/x` = main. */
  async function personRepo(s: TestServer) {
    const repo = await makeRepo();
    repo.git("branch", "feature/x");
    repo.git("checkout", "-q", "-b", "develop");
    repo.git("commit", "-q", "--allow-empty", "-m", "the person's own work on develop");
    repo.git("checkout", "-q", "main");
    const r = await s.api("POST", "/repositories", { path: repo.path });
    expect(r.status).toBe(201);
    return { repo, repository: r.body };
  }

  async function deleteAfterSession(s: TestServer, taskId: string) {
    const ses = await s.api("POST", `/tasks/${taskId}/sessions`, { prompt: "say hi" });
    expect(ses.status).toBe(201);
    await waitForSession(s.api, ses.body.id, ["waiting_for_input"]);
    const ws = (await s.api("GET", `/sessions/${ses.body.id}/workspace`)).body;
    await s.server.deps.agents.stop(ses.body.id);
    const r = await s.api("DELETE", `/tasks/${taskId}`);
    expect(r.status).toBe(202);
    const job = await waitForJob(s.api, taskId, r.body.jobId, ["succeeded", "failed", "retry_wait"]);
    expect(job.state).toBe("succeeded");
    await waitFor(async () => (await jobsOf(s.api, taskId)).some((j) => j.trigger === "purge" && j.state === "succeeded"), "the purge job");
    return ws.repositories[0];
  }

  it("LC-7: a task may work directly on its base (checkoutBranch = baseBranch); DELETE keeps that branch and its unique commit", async () => {
    const srv = await perTest.start();
    const { repo, repository } = await personRepo(srv);
    const tip = repo.git("rev-parse", "refs/heads/develop").trim();
    const t = await srv.api("POST", "/tasks", {
      title: "On develop",
      repositories: [{ repositoryId: repository.id, baseBranch: "develop", checkoutBranch: "develop" }],
    });
    expect(t.status).toBe(201);
    const slot = await deleteAfterSession(srv, t.body.id);
    expect(slot.worktreeBranch).toBe("develop");
    expect(repo.git("rev-parse", "refs/heads/develop").trim()).toBe(tip);
  });

  it("LC-7: DELETE keeps a person's existing checkout branch even when it holds nothing outside its base", async () => {
    const srv = await perTest.start();
    const { repo, repository } = await personRepo(srv);
    const tip = repo.git("rev-parse", "refs/heads/feature/x").trim();
    const t = await srv.api("POST", "/tasks", {
      title: "On feature x",
      repositories: [{ repositoryId: repository.id, baseBranch: "main", checkoutBranch: "feature/x" }],
    });
    expect(t.status).toBe(201);
    const slot = await deleteAfterSession(srv, t.body.id);
    expect(slot.worktreeBranch).toBe("feature/x");
    expect(repo.git("rev-parse", "refs/heads/feature/x").trim()).toBe(tip);
  });

  it("LC-7: a branch Grove created is still dropped when it holds nothing outside its base, and the base is untouched", async () => {
    const srv = await perTest.start();
    const { repo, repository } = await personRepo(srv);
    const develop = repo.git("rev-parse", "refs/heads/develop").trim();
    const t = await srv.api("POST", "/tasks", { title: "From develop", repositories: [{ repositoryId: repository.id, baseBranch: "develop" }] });
    expect(t.status).toBe(201);
    const slot = await deleteAfterSession(srv, t.body.id);
    expect(slot.worktreeBranch).not.toBe("develop");
    expect(repo.git("branch", "--list", slot.worktreeBranch).trim()).toBe("");
    expect(repo.git("rev-parse", "refs/heads/develop").trim()).toBe(develop);
  });
});
