import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ONE_DATABASE } from "../fixture/db.js";
import { addRemote, launch, makeRemoteRepo, remoteWorld, type RemoteWorld } from "./helpers.js";

describe.each(ONE_DATABASE)("RR-7 refresh failures (%s)", (kind) => {
  // The world's own generous timeout: a refresh that goes through may take seconds on a loaded
  // machine. The timeout case gets a world of its own with a short one, where the git host never
  // answers, so only the timeout can end its refresh however slow the machine is.
  let w: RemoteWorld;
  let hung: RemoteWorld;
  const repos: any[] = [];
  let hungRepo: any;

  beforeAll(async () => {
    [w, hung] = await Promise.all([remoteWorld(kind, "github"), remoteWorld(kind, "github", { env: { GROVE_REFRESH_TIMEOUT_MS: "1500" } })]);
    for (const name of ["one", "two", "three"]) {
      makeRemoteRepo(w.root, `acme/${name}`);
      repos.push(await addRemote(w.srv, { url: `${w.http.url}/acme/${name}`, provider: "github", credential: { token: w.token } }));
    }
    makeRemoteRepo(hung.root, "acme/one");
    hungRepo = await addRemote(hung.srv, { url: `${hung.http.url}/acme/one`, provider: "github", credential: { token: hung.token } });
  });
  afterAll(async () => Promise.all([w?.close(), hung?.close()]));

  test.each([
    ["401", "refresh_auth_failed"],
    ["500", "refresh_network_failed"],
    ["hang", "refresh_timeout"],
  ] as const)(
    "RR-7 refresh answering %s → session failed before any agent, typed lastError with repositoryId, no token or credentialed URL",
    async (mode, code) => {
      const [world, repo] = mode === "hang" ? [hung, hungRepo] : [w, repos[0]];
      world.http.setMode(mode);
      const { task, session } = await launch(world.srv, [{ repositoryId: repo.id }], `fail ${mode}`);
      world.http.setMode("ok");
      expect(session.state).toBe("failed");
      expect(session.lastError).toMatchObject({ code, repositoryId: repo.id });
      expect(session.lastError.message).toContain(repo.name);
      expect(session.lastError.message).toContain(task.id);
      expect(session.lastError.message).toContain(session.id);
      expect(session.lastError.message).not.toContain(world.token);
      expect(session.lastError.message).not.toMatch(/\/\/[^/\s]*@/);
      // No agent was started for it: no agent message, and no process recorded.
      const msgs = await world.srv.api("GET", `/sessions/${session.id}/messages`);
      expect(msgs.body.filter((m: any) => m.role !== "user")).toHaveLength(0);
      expect(world.srv.server.deps.agents.get(session.id)).toBeUndefined();
      const env = await world.srv.api("GET", `/tasks/${task.id}/environment`);
      expect(env.body.status).toBe("failed");
    },
  );

  test("RR-7 a 3-repository task whose 2nd repository fails → no agent started, no worktree left from this attempt", async () => {
    const second = "/acme/two";
    w.http.setRepoMode(second, "500");
    const { task, session } = await launch(
      w.srv,
      repos.map((r) => ({ repositoryId: r.id })),
      "three repos",
    );
    w.http.setRepoMode(second, "ok");
    // The first repository's refresh went through, so its new worktree existed and was undone.
    expect(w.http.fetches("/acme/one", true)).toBe(2);
    expect(session.state).toBe("failed");
    expect(session.lastError).toMatchObject({ code: "refresh_network_failed", repositoryId: repos[1].id });
    expect(w.http.count(second, { status: 500 })).toBeGreaterThan(0);
    expect(w.http.fetches("/acme/three", true)).toBe(1); // its clone only: never refreshed
    const root = join(w.srv.home, "tasks");
    const dirs = existsSync(root) ? readdirSync(root).flatMap((d) => readdirSync(join(root, d)).filter((f) => !f.startsWith("."))) : [];
    expect(dirs).toEqual([]);
    const env = await w.srv.api("GET", `/tasks/${task.id}/environment`);
    expect(env.body.repositories.filter((r: any) => r.worktreeId)).toEqual([]);
    expect(w.srv.server.deps.agents.get(session.id)).toBeUndefined();
  });

  test("WT-3 pullBeforeWorktree off → zero requests to the server during a launch", async () => {
    makeRemoteRepo(w.root, "acme/quiet");
    const quiet = await addRemote(w.srv, {
      url: `${w.http.url}/acme/quiet`,
      provider: "github",
      credential: { token: w.token },
      pullBeforeWorktree: false,
      name: "quiet",
    });
    const before = w.http.requests.length;
    const { session } = await launch(w.srv, [{ repositoryId: quiet.id }], "quiet");
    expect(session.state).toBe("waiting_for_input");
    expect(w.http.requests.length - before).toBe(0);
  });
});
