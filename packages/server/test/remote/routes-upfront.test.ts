import { existsSync, readdirSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { ONE_DATABASE } from "../fixture/db.js";
import { waitForSession } from "../fixture/server.js";
import { addRemote, launch, makeRemoteRepo, remoteWorld, type RemoteWorld } from "./helpers.js";
import { credentialKeyIdOf } from "../../src/orchestrator/refresh/remote-context.js";

const PLUGIN = join(import.meta.dirname, "harness", "forge-provider.mjs");

/** Seed 004 routing, exactly: route = f(provider, policy); every route decided before any preparation; scoped errors. */
describe.each(ONE_DATABASE)("refresh routes decided up front (%s)", (kind) => {
  let w: RemoteWorld | undefined;
  afterEach(async () => {
    await w?.close();
    w = undefined;
  });

  test("RR-4 seed 004: the executor policy is GitHub-only — refused with 400 for GitLab, Azure DevOps and a plugin, before any clone", async () => {
    w = await remoteWorld(kind, "gitlab", { env: { GROVE_PROVIDER_PLUGINS: PLUGIN } });
    const cases = [
      { url: `${w.http.url}/group/tool.git`, provider: "gitlab" },
      { url: `${w.http.url}/org/proj/_git/svc`, provider: "azure-devops" },
      { url: `${w.http.url}/r/team/app`, provider: "forge" },
    ];
    for (const c of cases) {
      for (const body of [{ ...c, credentialPolicy: "executor", credential: { token: w.token } }, { ...c, credentialPolicy: "executor" }, c]) {
        const r = await w.srv.api("POST", "/repositories", body);
        expect(r.status, `${c.provider} ${JSON.stringify(body)}`).toBe(400);
        expect(r.body.error.code).toBe("invalid_request");
        expect(["credentialPolicy", "credential"]).toContain(r.body.error.details.field);
      }
    }
    expect(w.http.requests).toHaveLength(0);
    expect((await w.srv.api("GET", "/repositories")).body).toHaveLength(0);
  });

  /** Two managed GitHub repositories on one task, launched and settled; returns what the tests need. */
  async function twoRepoTask(world: RemoteWorld) {
    makeRemoteRepo(world.root, "acme/one");
    makeRemoteRepo(world.root, "acme/two");
    const one = await addRemote(world.srv, { url: `${world.http.url}/acme/one.git`, provider: "github", credential: { token: world.token } });
    const two = await addRemote(world.srv, { url: `${world.http.url}/acme/two.git`, provider: "github", credential: { token: world.token } });
    return { one, two };
  }

  async function corruptCredential(world: RemoteWorld, repositoryId: string): Promise<void> {
    const deps = world.srv.server.deps;
    await deps.store.putCredential(repositoryId, "v1.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", credentialKeyIdOf(deps), deps.now());
  }

  test("RR-4 / RR-7 seed 004 on resume and restore: two worktrees gone, the SECOND route unreadable → the first is neither fetched nor recreated; credential_unreadable names task, session and repository", async () => {
    w = await remoteWorld(kind, "github");
    const { one, two } = await twoRepoTask(w);
    const { task, session } = await launch(w.srv, [{ repositoryId: one.id }, { repositoryId: two.id }]);
    expect(session.state).toBe("waiting_for_input");
    const ws = (await w.srv.api("GET", `/sessions/${session.id}/workspace`)).body;
    const [wt1, wt2] = ws.repositories.map((r: any) => r.worktreePath as string);
    await w.srv.server.deps.agents.stopAll({ graceMs: 500 });
    await rm(wt1, { recursive: true, force: true });
    await rm(wt2, { recursive: true, force: true });
    await corruptCredential(w, two.id);

    const before = w.http.requests.length;
    const r = await w.srv.api("POST", `/sessions/${session.id}/resume`);
    expect(r.status).toBe(202);
    const failed = await waitForSession(w.srv.api, session.id, ["failed", "waiting_for_input"]);
    expect(failed.state).toBe("failed");
    expect(failed.lastError).toMatchObject({ code: "credential_unreadable", repositoryId: two.id });
    for (const id of [task.id, session.id, two.id]) expect(failed.lastError.message).toContain(id);
    expect(w.http.requests.length - before).toBe(0);
    expect(existsSync(wt1)).toBe(false);

    const restore = await w.srv.api("POST", `/tasks/${task.id}/environment/restore`);
    expect(restore.body.error).toMatchObject({ code: "credential_unreadable", details: { taskId: task.id, repositoryId: two.id } });
    expect(w.http.requests.length - before).toBe(0);
    expect(existsSync(wt1)).toBe(false);
  });

  test("RR-4 seed 004 on launch: the second repository's route unreadable → the first is never fetched or created (0 requests), the session fails scoped", async () => {
    w = await remoteWorld(kind, "github");
    const { one, two } = await twoRepoTask(w);
    await corruptCredential(w, two.id);
    const before = w.http.requests.length;
    const { task, session } = await launch(w.srv, [{ repositoryId: one.id }, { repositoryId: two.id }]);
    expect(session.state).toBe("failed");
    expect(session.lastError).toMatchObject({ code: "credential_unreadable", repositoryId: two.id });
    for (const id of [task.id, session.id, two.id]) expect(session.lastError.message).toContain(id);
    expect(w.http.requests.length - before).toBe(0);
    // Nothing was prepared: not even the task directory (GROVE_HOME/tasks itself is made at start-up, SEC-6).
    const tasksDir = join(w.srv.home, "tasks");
    expect(existsSync(tasksDir) ? readdirSync(tasksDir) : []).toEqual([]);
    const env = (await w.srv.api("GET", `/tasks/${task.id}/environment`)).body;
    expect(env.repositories).toHaveLength(0);
  });
});
