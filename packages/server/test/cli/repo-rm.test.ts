import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeRepo, type TestRepo } from "../fixture/git.js";
import { waitFor } from "../fixture/server.js";
import { addRemote, makeRemoteRepo, remoteWorld, type RemoteWorld } from "../remote/helpers.js";
import { runGrove } from "./run-cli.js";

// `grove repo rm` / `DELETE /repositories/:id` on both databases: refused while any
// task (archived included) refers to the repository; a local checkout is never touched, Grove's
// own clone of a remote repository is removed.
for (const kind of ["sqlite", "postgres"] as const) {
  describe(`repo rm (${kind})`, () => {
    let w: RemoteWorld;
    let local: TestRepo;
    const grove = (...args: string[]) => runGrove([...args, "--server", w.srv.url]);
    const repoIds = async () => ((await w.srv.api("GET", "/repositories")).body as { id: string }[]).map((r) => r.id);

    beforeAll(async () => {
      w = await remoteWorld(kind, "github");
      local = await makeRepo({ name: `checkout-${kind}` });
    });
    afterAll(async () => {
      await w?.close();
      await local?.cleanup();
    });

    it("a repository used by a live task, then by an archived one → 409 repository_in_use, nothing removed", async () => {
      const repo = (await w.srv.api("POST", "/repositories", { path: local.path, name: "used" })).body as { id: string };
      const task = (await w.srv.api("POST", "/tasks", { title: "uses it", repositories: [{ repositoryId: repo.id }] })).body as { id: string };

      const live = await grove("repo", "rm", "used");
      expect(live.code).toBe(1);
      expect(live.stderr).toMatch(/^error: repository_in_use: .*task_/);
      const api = await w.srv.api("DELETE", `/repositories/${repo.id}`, {});
      expect(api.status).toBe(409);
      expect(api.body.error).toMatchObject({ code: "repository_in_use", details: { taskIds: [task.id] } });

      expect((await w.srv.api("POST", `/tasks/${task.id}/archive`, {})).status).toBe(202);
      await waitFor(
        async () => ((await w.srv.api("GET", `/cleanup-jobs?taskId=${task.id}`)).body as { state: string }[]).every((j) => j.state === "succeeded"),
        "archive job",
      );
      const archived = await grove("repo", "rm", repo.id);
      expect(archived.code).toBe(1);
      expect(archived.stderr).toMatch(/^error: repository_in_use: /);
      expect(await repoIds()).toContain(repo.id);
      expect(existsSync(`${local.path}/.git`)).toBe(true);
    });

    it("an unused local repository → gone from the list, the person's checkout untouched", async () => {
      const other = await makeRepo({ name: `unused-${kind}` });
      try {
        const head = other.git("rev-parse", "HEAD");
        const repo = (await w.srv.api("POST", "/repositories", { path: other.path, name: "unused" })).body as { id: string };
        const r = await grove("repo", "rm", "unused");
        expect(r.code).toBe(0);
        expect(r.stdout).toBe(`removed repository unused (${repo.id})\n`);
        expect(await repoIds()).not.toContain(repo.id);
        expect(existsSync(`${other.path}/README.md`)).toBe(true);
        expect(other.git("rev-parse", "HEAD")).toBe(head);
        expect(other.git("status", "--porcelain")).toBe("");
      } finally {
        await other.cleanup();
      }
    });

    it("an unused remote repository → Grove's clone directory removed", async () => {
      makeRemoteRepo(w.root, "acme/gadget");
      const repo = await addRemote(w.srv, { url: `${w.http.url}/acme/gadget.git`, provider: "github", credential: { token: w.token } });
      expect(existsSync(repo.path)).toBe(true);
      const r = await grove("repo", "rm", repo.id, "--json");
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual({ ok: true, repositoryId: repo.id, action: "rm" });
      expect(existsSync(repo.path)).toBe(false);
      expect(await repoIds()).not.toContain(repo.id);
      // The remote itself is not Grove's: it is still there.
      expect(existsSync(`${w.root}/acme/gadget.git/HEAD`)).toBe(true);
    });

    it("an unknown repository → 404 not_found", async () => {
      expect((await w.srv.api("DELETE", "/repositories/repo_nope", {})).body.error.code).toBe("not_found");
    });
  });
}
