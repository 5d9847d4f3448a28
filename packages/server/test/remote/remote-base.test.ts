import { afterEach, describe, expect, it } from "vitest";
import { ONE_DATABASE } from "../fixture/db.js";
import { gitSync } from "../fixture/git.js";
import { waitForSession } from "../fixture/server.js";
import { g } from "./harness/repos.js";
import { addRemote, makeRemoteRepo, remoteWorld, type RemoteWorld } from "./helpers.js";

describe.each(ONE_DATABASE)("a remote repository's base that exists only as origin/<base> (%s)", (kind) => {
  let w: RemoteWorld | undefined;
  afterEach(async () => {
    await w?.close();
    w = undefined;
  });

  async function world(pullBeforeWorktree: boolean) {
    w = await remoteWorld(kind, "github");
    const remote = makeRemoteRepo(w.root, "acme/based", { "README.md": "# based\n" });
    g(remote.work, "switch", "-q", "-c", "develop");
    g(remote.work, "commit", "-q", "--allow-empty", "-m", "develop only");
    g(remote.work, "push", "-q", remote.bare, "develop");
    const developTip = g(remote.work, "rev-parse", "HEAD");
    const repo = await addRemote(w.srv, { url: `${w.http.url}/acme/based.git`, provider: "github", credential: { token: w.token }, pullBeforeWorktree });
    // The managed clone has `main` as a local branch and `develop` only as origin/develop.
    expect(gitSync(repo.path, "branch", "--list", "develop").trim()).toBe("");
    const t = await w.srv.api("POST", "/tasks", { title: "On develop", repositories: [{ repositoryId: repo.id, baseBranch: "develop" }] });
    expect(t.status).toBe(201);
    return { repo, task: t.body, developTip };
  }

  for (const pull of [true, false]) {
    it(`RR-1 CHG-1 pullBeforeWorktree ${pull ? "on" : "off"}: the worktree starts at origin/develop and Changes compare with it`, async () => {
      const { task, developTip } = await world(pull);
      const s = await w!.srv.api("POST", `/tasks/${task.id}/sessions`, { prompt: "write x.txt x" });
      expect(s.body.state).not.toBe("failed");
      await waitForSession(w!.srv.api, s.body.id, ["waiting_for_input"]);
      const ws = (await w!.srv.api("GET", `/sessions/${s.body.id}/workspace`)).body;
      expect(gitSync(ws.workspacePath, "rev-parse", "HEAD").trim()).toBe(developTip);
      const ch = (await w!.srv.api("GET", `/tasks/${task.id}/changes`)).body;
      expect(ch.repositories[0].error).toBeUndefined();
      expect(ch.repositories[0]).toMatchObject({ baseBranch: "develop", mergeBase: developTip, ahead: 0, behind: 0 });
      expect(ch.repositories[0].files.map((f: { path: string }) => f.path)).toEqual(["x.txt"]);
      const d = await w!.srv.api("GET", `/tasks/${task.id}/changes/diff?repositoryId=${ch.repositories[0].repositoryId}&path=x.txt`);
      expect(d.status).toBe(200);
      expect(d.body.patch).toContain("+x");
    });
  }
});
